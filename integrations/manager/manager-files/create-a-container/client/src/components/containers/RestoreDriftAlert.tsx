import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, AlertDescription, Button, Spinner } from '@mieweb/ui';
import { api, ApiError } from '@/lib/api';
import { keys, queries } from '@/lib/queries';
import type { Container } from '@/lib/types';

const JOB_POLL_MS = 2000;

/** A job's headline, as the container JSON's creation headline is read: its last "... failed: " line, else its last line. */
function jobHeadline(outputs: string[]): string | null {
  const lines = outputs.flatMap((o) => o.split('\n')).map((l) => l.trim()).filter(Boolean);
  const failedLines = lines.filter((l) => / failed: /.test(l));
  return failedLines.at(-1) ?? lines.at(-1) ?? null;
}

/**
 * The edit page's drift notice: what changed outside Manager and "Restore Manager's
 * configuration" (PUT `{ restore: true }`, which queues the reconfigure job). While that job
 * runs the notice says so and links to it; when it ends the container is read again, so the
 * notice goes (or stays, with the job's outcome) without a reload; a failed restore says
 * why (the job's headline) even when the drift is gone. The outcome is said in the
 * page: Manager's ToastProvider renders no ToastContainer, so a toast would never be seen.
 */
export function RestoreDriftAlert({ c, siteId, canManage }: { c: Container; siteId?: string; canManage: boolean }) {
  const qc = useQueryClient();
  const [jobId, setJobId] = useState<number | null>(null);
  const [outcome, setOutcome] = useState<{ jobId: number; status: string } | null>(null);
  const job = useQuery({
    queryKey: keys.job(jobId ?? 0),
    queryFn: () => queries.getJob(jobId!),
    enabled: jobId !== null,
    refetchInterval: (query) => {
      // Manager's Job rows say pending, running, success, failure or cancelled.
      const status = query.state.data?.status as string | undefined;
      return status === 'pending' || status === 'running' || status === undefined ? JOB_POLL_MS : false;
    },
  });
  const status = job.data?.status as string | undefined;
  const running = jobId !== null && (status === undefined || status === 'pending' || status === 'running');

  useEffect(() => {
    if (jobId === null || running) return;
    qc.invalidateQueries({ queryKey: keys.container(siteId!, c.id) });
    qc.invalidateQueries({ queryKey: keys.containers(siteId!), exact: true });
    setOutcome({ jobId, status: status ?? 'unknown' });
    setJobId(null);
  }, [jobId, running, status, qc, siteId, c.id]);

  const restore = useMutation({
    mutationFn: () =>
      api.put<{ jobId: number | null }>(`/api/v1/sites/${siteId}/containers/${c.id}`, { restore: true }),
    onMutate: () => setOutcome(null),
    onSuccess: (result) => setJobId(result.jobId),
  });

  // A failed restore says why: the job's "... failed: <message>" line (else its last line).
  const failed = outcome !== null && outcome.status !== 'success';
  const log = useQuery({
    queryKey: [...keys.job(outcome?.jobId ?? 0), 'statuses'],
    queryFn: () => queries.getJobStatuses(outcome!.jobId),
    enabled: failed,
  });
  const headline = log.data ? jobHeadline(log.data.map((row) => row.output)) : null;

  const drifted = c.drift?.state === 'drifted';
  if (!drifted && !running) {
    if (failed) {
      return (
        <Alert variant="danger" data-testid="restore-outcome">
          <AlertDescription>
            The restore job ended {outcome.status}
            {headline ? `: ${headline}` : ''} (
            <Link to={`/jobs/${outcome.jobId}`} className="underline">
              job {outcome.jobId}
            </Link>
            )
          </AlertDescription>
        </Alert>
      );
    }
    if (outcome?.status !== 'success') return null;
    return (
      <Alert variant="success" data-testid="restore-outcome">
        <AlertDescription>
          Manager&apos;s configuration restored:{' '}
          <Link to={`/jobs/${outcome.jobId}`} className="underline">
            job {outcome.jobId}
          </Link>
        </AlertDescription>
      </Alert>
    );
  }
  return (
    <Alert variant="warning" data-testid="drift-alert">
      <AlertDescription className="flex flex-wrap items-center gap-3">
        <span>Changed outside Manager: {c.drift?.summary}</span>
        {running ? (
          <span className="inline-flex items-center gap-2" data-testid="restore-running">
            <Spinner size="sm" /> Restoring…{' '}
            <Link to={`/jobs/${jobId}`} className="underline">
              job {jobId}
            </Link>
          </span>
        ) : (
          canManage && (
            <Button type="button" size="sm" variant="outline" onClick={() => restore.mutate()} disabled={restore.isPending}>
              Restore Manager&apos;s configuration
            </Button>
          )
        )}
        {outcome && outcome.status !== 'success' && (
          <span className="text-destructive" role="alert" data-testid="restore-outcome">
            The restore job ended {outcome.status}
            {headline ? `: ${headline}` : ''} (
            <Link to={`/jobs/${outcome.jobId}`} className="underline">
              job {outcome.jobId}
            </Link>
            )
          </span>
        )}
        {restore.isError && (
          <span className="text-destructive" role="alert">
            Restore refused: {(restore.error as ApiError).message}
          </span>
        )}
      </AlertDescription>
    </Alert>
  );
}
