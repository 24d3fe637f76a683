import request from 'supertest';
import { FINAL_JOB_STATUSES } from '../../apps/costasset/src/jobs/schemas/job.schema';
import { eventually, Platform } from './platform';

export interface FinishedJob {
  jobId: string;
  status: 'succeeded' | 'completed_with_errors' | 'failed' | 'terminated';
  error?: string;
  result?: Record<string, unknown>;
  attempts?: number;
}

export async function waitForJob(platform: Platform, token: string, jobId: string, timeoutMs = 30_000): Promise<FinishedJob> {
  let job: FinishedJob | undefined;
  await eventually(
    async () => {
      const res = await request(platform.costasset.url).get(`/api/costasset/v1/jobs/${jobId}`).set('corelite-token', token).expect(200);
      expect(FINAL_JOB_STATUSES).toContain(res.body.status);
      job = res.body;
    },
    timeoutMs,
    150,
  );
  return job as FinishedJob;
}

/** Submits a GPD upload and PUTs the zip to its pre-signed URL, as a client would. */
export async function uploadGpd(platform: Platform, token: string, provider: string, zip: Buffer): Promise<string> {
  const submitted = await request(platform.costasset.url)
    .post('/api/costasset/v1/gpd')
    .query({ providername: provider })
    .set('corelite-token', token)
    .expect(202);
  const put = await fetch(submitted.body.uploadUrl, { method: 'PUT', body: zip });
  expect(put.status).toBe(200);
  return submitted.body.GPDUploadRefId;
}

/** The user path of a GPD file: upload, enrich, wait for the job. */
export async function ingestGpd(platform: Platform, token: string, provider: string, zip: Buffer): Promise<FinishedJob> {
  const refId = await uploadGpd(platform, token, provider, zip);
  const enrich = await request(platform.costasset.url)
    .post('/api/costasset/v1/gpd/enrich')
    .set('corelite-token', token)
    .send({ GPDUploadRefId: [refId], provider: [provider], retry: 'false' })
    .expect(200);
  return waitForJob(platform, token, enrich.body.jobs[0].jobId);
}
