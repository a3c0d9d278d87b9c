#!/usr/bin/env bash
# Run the end-to-end suite against a kind cluster instead of the built-in fake API server.
#   kind create cluster --config examples/kind-cluster.yaml
#   examples/run-e2e-on-kind.sh [pytest args]
# Needs kind's context (kind-manager-e2e) in your kubeconfig and cluster-admin on it: the
# script creates a namespace, applies rbac/ there and runs the tests as that ServiceAccount.
set -euo pipefail
cd "$(dirname "$0")/.."
context=${KIND_CONTEXT:-kind-manager-e2e}
ns=${E2E_NAMESPACE:-manager-e2e}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

kubectl --context "$context" create namespace "$ns" --dry-run=client -o yaml \
  | kubectl --context "$context" apply -f -
for f in rbac/serviceaccount.yaml rbac/role.yaml rbac/rolebinding.yaml rbac/clusterrole-nodes.yaml; do
  sed "s/namespace: manager$/namespace: $ns/" "$f" | kubectl --context "$context" apply -f -
done
kubectl config use-context "$context" >/dev/null
rbac/make-kubeconfig.sh "$ns" "$work/sa.kubeconfig" 1h

./dev test --version >/dev/null 2>&1 || true   # make sure .venv exists
KUBECTL_ADAPTER_E2E_KUBECONFIG="$work/sa.kubeconfig" \
KUBECTL_ADAPTER_E2E_CONTEXT=manager \
KUBECTL_ADAPTER_E2E_NAMESPACE="$ns" \
KUBECTL_ADAPTER_E2E_TIMEOUT=${E2E_TIMEOUT:-180} \
  .venv/bin/pytest tests/e2e "$@"
