import { Badge } from '@mieweb/ui';
import type { ContainerDrift } from '@/lib/types';

/**
 * Beside a container's status in the list: "Changed outside Manager" when the node reports the
 * workload differs from what Manager stored (a Kubernetes Deployment edited with kubectl), with
 * the summary as its tooltip; nothing otherwise (in sync, or a node type without drift: null).
 * The container's page says what changed and offers Restore.
 */
export function DriftBadge({ drift }: { drift: ContainerDrift | null | undefined }) {
  if (drift?.state !== 'drifted') return null;
  return (
    <span title={drift.summary} data-testid="drift-badge">
      <Badge variant="warning">Changed outside Manager</Badge>
    </span>
  );
}
