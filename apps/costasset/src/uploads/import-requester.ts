import type { Principal } from '@lib/auth';
import type { JobSubmitter } from '../jobs/schemas/job.schema';
import { EVERYTHING, grantOf, VisibilityGrant } from '../resource-groups/visibility.service';

/**
 * Who an import is done for, kept where the work outlives the request (an extension flow's job
 * enriches the file it wrote): the user who follows its jobs, and the visibility it runs within.
 */
export interface ImportRequester {
  submitter?: JobSubmitter;
  grant: VisibilityGrant;
}

/** The service's own imports: no user follows them, and they run within everything. */
export const SERVICE_IMPORT: ImportRequester = Object.freeze({ grant: EVERYTHING });

export function requesterOf(principal: Principal): ImportRequester {
  return { submitter: { userId: principal.userId, idpId: principal.idpId }, grant: grantOf(principal) };
}
