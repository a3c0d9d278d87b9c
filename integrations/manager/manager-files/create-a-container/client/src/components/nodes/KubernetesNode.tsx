import { Badge } from '@mieweb/ui';
import type { Node, RoleFix } from '@/lib/types';

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
 * The node's last connection test: a badge with its summary as tooltip, and what the Role
 * lacks ("this node's Role lacks watch on pods: apply rbac/role.yaml again", the command, the
 * full list folded), so an upgraded node whose creates all fail says why in the list. "Not tested" until someone (or a create
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
      <MissingPermissions fix={last.fix} hints={last.hints} />
    </span>
  );
}

/**
 * What the node's Role lacks, for a person: one line saying what is missing, the one command
 * that fixes it, and the full list (a context with no permissions has a dozen) behind a
 * disclosure. A verdict kept before `fix` existed shows its first hint as the line.
 */
export function MissingPermissions({ fix, hints }: { fix?: RoleFix | null; hints: string[] }) {
  if (!fix && !hints.length) return null;
  return (
    <span className="inline-flex flex-col gap-0.5 text-xs" data-testid="missing-permissions">
      <span className="text-destructive">{fix ? fix.summary : hints[0]}</span>
      {fix && <code className="select-all break-all font-mono">{fix.command}</code>}
      {hints.length > 1 && (
        <details>
          <summary className="cursor-pointer text-muted-foreground">All {hints.length} missing permissions</summary>
          <ul className="ml-4 list-disc">
            {hints.map((hint) => (
              <li key={hint}>{hint}</li>
            ))}
          </ul>
        </details>
      )}
    </span>
  );
}
