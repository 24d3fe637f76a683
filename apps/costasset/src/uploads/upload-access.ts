import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { evaluateFilter } from '../expressions';
import { EVERYTHING, VisibilityService } from '../resource-groups/visibility.service';
import { ImportVisibility } from './import-visibility';
import { Upload, UploadCreator } from './schemas/upload.schema';

/** What an upload's scopes tell of its rows: a visibility naming anything else cannot be decided from them. */
const SCOPE_FIELDS: ReadonlySet<string> = new Set(['providerName', 'billingAccountId', 'billingPeriod']);

type Guarded = Pick<Upload, 'createdBy' | 'scopes'>;

/**
 * Who sees an upload, its files and its report, and so may clean it up or import it again (with
 * the role the route asks for): a System Admin; the user who created it; anyone whose visibility
 * holds every (provider, billing account, billing period) the upload has rows in. An upload that
 * holds no rows yet, or rows a visibility cannot be decided on from those three fields, is seen
 * by its creator and the System Admins only.
 */
@Injectable()
export class UploadAccess {
  constructor(private readonly visibility: VisibilityService) {}

  static creatorOf(principal: Principal): UploadCreator {
    return { userId: principal.userId, idpId: principal.idpId };
  }

  /** The uploads of `uploads` the caller may see, in their order (one visibility look-up for all). */
  async visible<T extends Guarded>(principal: Principal, uploads: T[]): Promise<T[]> {
    if (principal.isSystemAdmin) return uploads;
    const filter = (await this.visibility.filterFor(principal)) ?? {};
    return uploads.filter((upload) => isCreator(principal, upload) || holdsOnlyVisibleRows(filter, upload));
  }

  async maySee(principal: Principal, upload: Guarded): Promise<boolean> {
    return (await this.visible(principal, [upload])).length === 1;
  }

  /** The visibility an import of the upload runs within: its requester's, recorded when it was asked for. */
  async importVisibility(tenantId: string, upload: Pick<Upload, 'importGrant'>): Promise<ImportVisibility> {
    return new ImportVisibility(await this.visibility.filterForGrant(tenantId, upload.importGrant ?? EVERYTHING));
  }
}

function isCreator(principal: Principal, upload: Guarded): boolean {
  return upload.createdBy?.userId === principal.userId && upload.createdBy.idpId === principal.idpId;
}

function holdsOnlyVisibleRows(filter: Record<string, unknown>, upload: Guarded): boolean {
  const scopes = upload.scopes ?? [];
  return scopes.length > 0 && scopes.every((scope) => evaluateFilter(filter, { ...scope }, SCOPE_FIELDS) === true);
}
