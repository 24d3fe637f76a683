import { costasset, unwrap } from '../api/client';
import type { Job } from '../api/types';
import { bytes, number } from './format';

/** Statuses a job does not leave. */
export const FINAL_JOB_STATUSES = new Set<Job['status']>(['succeeded', 'failed', 'terminated', 'completed_with_errors']);

/** Polls a job until it ends, handing each state to `onJob`; `isCancelled` stops following (the view went away). */
export async function followJob(jobId: string, onJob: (job: Job) => void, isCancelled: () => boolean = () => false): Promise<Job> {
  for (;;) {
    const job = await unwrap(costasset.GET('/api/costasset/v1/jobs/{jobId}', { params: { path: { jobId } } }));
    if (!isCancelled()) onJob(job);
    if (FINAL_JOB_STATUSES.has(job.status) || isCancelled()) return job;
    await new Promise((resolve) => setTimeout(resolve, 800));
  }
}

/** A job's progress in its own unit: `1.2 MB of 3.4 MB read, 12,345 rows`. */
export function describeProgress(progress: Job['progress']): string {
  const amount = (value: number) => (progress.unit === 'bytes' ? bytes(value) : `${number(value)} ${progress.unit}`);
  // a reader may count a few bytes twice (a Parquet footer read again): never more than all of it
  const parts = [
    progress.total
      ? `${amount(Math.min(progress.done, progress.total))} of ${amount(progress.total)}`
      : progress.done
        ? amount(progress.done)
        : '',
  ];
  if (progress.rows !== undefined && progress.unit !== 'rows') parts.push(`${number(progress.rows)} rows read`);
  return parts.filter(Boolean).join(', ');
}
