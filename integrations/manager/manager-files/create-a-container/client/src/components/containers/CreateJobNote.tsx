import { Link } from 'react-router';
import { useEffect } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from '@mieweb/ui';
import { RotateCcw } from 'lucide-react';
import { api, ApiError } from '@/lib/api';
import { keys, queries } from '@/lib/queries';
import type { Container } from '@/lib/types';

/**
 * Beside a container's status: its creation job's failure, when it failed (a Kubernetes create
 * can fail after its apply while the Deployment runs: "Running" alone would hide it), and a
 * "Retry create" button when the node type's create converges (`canRetryCreate`). The retry
 * re-queues the same create job for the same row; the note follows the new job and, when it
 * ends, the list and the page are read again: success, or the new failure's headline. When the
 * create did not fail, the newest reconfigure job's failure (a restore whose image crashes) is
 * said here instead, with its headline and next step.
 * Its outcome is said here, in the page: Manager's ToastProvider keeps toasts in its context but
 * its app renders no ToastContainer, so a toast would never be seen.
 */
const JOB_POLL_MS = 2000;

/** Manager's Job rows say pending, running, success, failure or cancelled. */
function jobEnded(status: string | undefined): boolean {
  return status !== undefined && status !== 'pending' && status !== 'running';
}

export function CreateJobNote({ c, siteId }: { c: Container; siteId?: string }) {
  const qc = useQueryClient();
  const retry = useMutation<{ jobId: number }, ApiError>({
    mutationFn: () => api.post<{ jobId: number }>(`/api/v1/sites/${siteId}/containers/${c.id}/retry-create`),
    onSuccess: () => {
      qc.invalidateQueries({ queryKey: keys.containers(siteId!) });
      qc.invalidateQueries({ queryKey: keys.container(siteId!, c.id) });
    },
  });
  // The retry's job is followed until it ends; then the list and the container are read again,
  // so the status and the headline are the job's outcome without a reload.
  const retryJobId = retry.data?.jobId ?? null;
  const job = useQuery({
    queryKey: keys.job(retryJobId ?? 0),
    queryFn: () => queries.getJob(retryJobId!),
    enabled: retryJobId !== null,
    refetchInterval: (query) => (jobEnded(query.state.data?.status as string | undefined) ? false : JOB_POLL_MS),
  });
  const retryStatus = job.data?.status as string | undefined;
  const retryEnded = retryJobId !== null && jobEnded(retryStatus);
  useEffect(() => {
    if (!retryEnded) return;
    qc.invalidateQueries({ queryKey: keys.containers(siteId!) });
    qc.invalidateQueries({ queryKey: keys.container(siteId!, c.id) });
  }, [retryEnded, qc, siteId, c.id]);
  // Shown while the row follows the new job, and when it succeeded; a failure shows its headline below.
  if (retry.isSuccess && c.creationJob?.status !== 'failure') {
    const succeeded = retryEnded && retryStatus === 'success';
    return (
      <span className="text-xs text-muted-foreground" role="status" data-testid="create-job-note">
        {succeeded ? `Create of ${c.hostname} succeeded: ` : `Create of ${c.hostname} queued again: `}
        <Link to={`/jobs/${retry.data.jobId}`} className="underline underline-offset-2">
          job {retry.data.jobId}
        </Link>
      </span>
    );
  }
  if (c.creationJob?.status !== 'failure') {
    // The newest reconfigure job (a restore, a restart, an edit) failed: the list says so and
    // why, as the page that started it did, until a newer one succeeds.
    const failedJob = c.failedReconfigureJob;
    if (!failedJob) return null;
    const line = failedJob.headline || 'Reconfigure job failed';
    return (
      <Link
        to={`/jobs/${failedJob.id}`}
        className="max-w-[28rem] truncate text-xs text-destructive underline-offset-2 hover:underline"
        title={line}
        data-testid="reconfigure-job-note"
      >
        {line}
      </Link>
    );
  }
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
