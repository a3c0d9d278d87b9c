import { Badge } from '@mieweb/ui';
import type { Node } from '@/lib/types';

/**
 * What a Kubernetes node has instead of an IPv4 address, an API URL and stored credentials:
 * the kubeconfig context and the namespace its Deployments live in.
 */
export function KubernetesTarget({ n }: { n: Node }) {
  return (
    <span className="text-xs">
      <span className="text-muted-foreground">context </span>
      <span className="font-mono">{n.kubeContext || 'current-context'}</span>
      <span className="text-muted-foreground"> · namespace </span>
      <span className="font-mono">{n.kubeNamespace || 'default'}</span>
    </span>
  );
}

/**
 * The node's last connection test: a badge with its summary as tooltip, and each hint as a
 * line ("this node's Role lacks watch on pods: apply rbac/role.yaml again"), so an upgraded
 * node whose creates all fail says why in the list. "Not tested" until someone (or a create
 * refused for a permission) runs the test.
 */
export function ConnectionVerdict({ n }: { n: Node }) {
  const last = n.lastConnectionTest;
  if (!last) return <Badge variant="secondary">Not tested</Badge>;
  const when = new Date(last.at).toLocaleString();
  return (
    <span className="inline-flex flex-col gap-0.5" data-testid="connection-verdict">
      <span className="inline-flex items-center gap-1.5">
        <Badge variant={last.ok ? 'success' : 'danger'} title={`${last.summary} (${when})`}>
          {last.ok ? 'Connected' : 'Test failed'}
        </Badge>
        <span className="max-w-[24rem] truncate text-xs text-muted-foreground" title={last.summary}>
          {last.summary}
        </span>
      </span>
      {last.hints.map((hint) => (
        <span key={hint} className="text-xs text-destructive">
          {hint}
        </span>
      ))}
    </span>
  );
}
