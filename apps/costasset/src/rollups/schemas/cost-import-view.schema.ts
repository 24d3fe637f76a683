import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const COST_IMPORT_VIEW = 'CostImportView';

/** The fields of one (provider, billing account, billing period) scope of an upload: what an import replaces. */
export const SCOPE_FIELDS = ['providerName', 'billingAccountId', 'billingPeriod'] as const;

/** A scope of an upload's rows: the rows of `uploadRefId` in one (provider, billing account, billing period). */
export interface UploadScope {
  uploadRefId: string;
  providerName: string | null;
  billingAccountId: string | null;
  billingPeriod: string | null;
}

/** What readers must not see: a whole upload (`{ uploadRefId }`) or one scope of it. */
export type HiddenRows = { uploadRefId: string } | UploadScope;

/**
 * One entry of the view: the rows hidden (`whole`: every row of the upload, else one scope of it),
 * since when, and the import whose publication hid them (none for an upload still importing).
 */
export type HiddenEntry = (({ uploadRefId: string } & Partial<Omit<UploadScope, 'uploadRefId'>>) | UploadScope) & {
  whole: boolean;
  since: Date;
  by?: string;
};

/**
 * The tenant's import view (docs/rollups.md, "What a concurrent reader sees"): one document per
 * tenant listing the rows no reader may see, the uploads still importing (whole) and the scopes
 * of older uploads a published import replaced, until their rows are deleted. Every change is one
 * conditional update of the whole document on `version` (read, change, write if unchanged), so a
 * publication unhides an import and hides what it replaces at the same instant.
 */
export interface CostImportView {
  tenantId: string;
  version: number;
  hidden: HiddenEntry[];
}

const HiddenEntrySchema = new Schema(
  {
    uploadRefId: { type: String, required: true },
    providerName: String,
    billingAccountId: String,
    billingPeriod: String,
    whole: { type: Boolean, required: true },
    since: Date,
    by: String,
  },
  { _id: false, minimize: false },
);

export const CostImportViewSchema = new Schema<CostImportView>(
  { version: { type: Number, default: 0 }, hidden: { type: [HiddenEntrySchema], default: [] } },
  { collection: 'cost_import_views', versionKey: false },
);
CostImportViewSchema.plugin(tenantScopedPlugin);
CostImportViewSchema.index({ tenantId: 1 }, { unique: true });
