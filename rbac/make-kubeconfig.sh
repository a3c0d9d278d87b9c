#!/usr/bin/env bash
# Write a kubeconfig for the adapter's ServiceAccount, using the current (admin) context to
# mint a token. Usage: rbac/make-kubeconfig.sh NAMESPACE OUTPUT [DURATION]
#   NAMESPACE  the Manager node's namespace (where rbac/*.yaml were applied)
#   OUTPUT     path of the kubeconfig to write (mode 600)
#   DURATION   token lifetime for `kubectl create token` (default 8760h; the API may cap it)
set -euo pipefail
ns=${1:?namespace}
out=${2:?output kubeconfig path}
duration=${3:-8760h}
sa=opensource-server-manager

server=$(kubectl config view --minify --raw -o jsonpath='{.clusters[0].cluster.server}')
ca=$(kubectl config view --minify --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')
token=$(kubectl -n "$ns" create token "$sa" --duration "$duration")

umask 077
cat >"$out" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
  - name: manager-cluster
    cluster:
      server: ${server}
      certificate-authority-data: ${ca}
users:
  - name: ${sa}
    user:
      token: ${token}
contexts:
  - name: manager
    context:
      cluster: manager-cluster
      user: ${sa}
      namespace: ${ns}
current-context: manager
KUBECONFIG
echo "wrote $out (context 'manager', namespace '$ns')" >&2
