import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button } from '@mieweb/ui';
import { RotateCcw } from 'lucide-react';
import { api, ApiError } from '@/lib/api';
import { keys } from '@/lib/queries';
import type { Container } from '@/lib/types';

/**
 * Beside a container's status: its creation job's failure, when it failed (a Kubernetes create
 * can fail after its apply while the Deployment runs: "Running" alone would hide it), and a
 * "Retry create" button when the node type's create converges (`canRetryCreate`). The retry
 * re-queues the same create job for the same row; the list and the page follow the new job.
 * Its outcome is said here, in the page: Manager's ToastProvider keeps toasts in its context but
 * its app renders no ToastContainer, so a toast would never be seen.
 */
export function CreateJobNote({ c, siteId }: { c: Container; siteId?: string }) {
  const qc = useQueryClient();
  const retry = useMutation<{ jobId: number }, ApiError>({
    mutationFn: () => api.post<{ jobId: number }>(`/api/v1/sites/${siteId}/containers/${c.id}/retry-create`),
    onSuccess: () => {
      qc.invalidateQueries({ queryKey: keys.containers(siteId!) });
      qc.invalidateQueries({ queryKey: keys.container(siteId!, c.id) });
    },
  });
  // Shown while the row follows the new job: the failed headline is gone, the retry's job is not.
  if (retry.isSuccess && c.creationJob?.status !== 'failure') {
    return (
      <span className="text-xs text-muted-foreground" role="status" data-testid="create-job-note">
        Create of {c.hostname} queued again:{' '}
        <Link to={`/jobs/${retry.data.jobId}`} className="underline underline-offset-2">
          job {retry.data.jobId}
        </Link>
      </span>
    );
  }
  if (c.creationJob?.status !== 'failure') return null;
  const headline = c.creationJob.headline || 'Create job failed';
  return (
    <span className="inline-flex min-w-0 items-center gap-1.5" data-testid="create-job-note">
      <Link
        to={`/jobs/${c.creationJob.id}`}
        className="max-w-[28rem] truncate text-xs text-destructive underline-offset-2 hover:underline"
        title={headline}
      >
        {headline}
      </Link>
      {c.canRetryCreate && (
        <Button
          type="button"
          variant="outline"
          size="sm"
          leftIcon={<RotateCcw className="size-3.5" />}
          onClick={() => retry.mutate()}
          disabled={retry.isPending}
        >
          Retry create
        </Button>
      )}
      {retry.isError && (
        <span className="text-xs text-destructive" role="alert">
          Retry refused: {retry.error.message}
        </span>
      )}
    </span>
  );
}
