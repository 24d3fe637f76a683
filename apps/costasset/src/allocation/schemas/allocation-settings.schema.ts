import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const ALLOCATION_SETTINGS = 'AllocationSettings';
export const DIMENSION_VERSION = 'DimensionVersion';

export interface StoredTagKey {
  group: string | null;
  key: string;
  activatedAt: Date;
  activatedBy: string;
}

export interface StoredDimension {
  name: string;
  description?: string;
  rules: Array<{ expr: string; value: string }>;
  defaultValue: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  updatedBy: string;
}

/** A split rule as stored: `target` is `dimension:<name>` or `tag:<group>:<key>`. */
export interface StoredSplit {
  name: string;
  source: string;
  target: string;
  method: 'proportional' | 'even' | 'fixed';
  targets: Array<{ value: string; percent?: number }>;
}

/**
 * A tenant's allocation settings, one document per tenant: the activated tag keys and the virtual
 * dimensions. `revision` grows with every change; a change is one conditional update on it (read,
 * change, write if unchanged), so two admins never lose each other's change.
 */
export interface AllocationSettings {
  tenantId: string;
  revision: number;
  /** The revision of the latest change the rollups depend on (tag keys, dimensions; not splits). */
  rollupRevision?: number;
  tagKeys: StoredTagKey[];
  dimensions: StoredDimension[];
  /** The shared-cost split rules, in the order they run. */
  splits?: StoredSplit[];
  /** Declared providers: one name for the spellings and aliases files give a provider. */
  providers?: Array<{ name: string; aliases: string[] }>;
}

const TagKeySchema = new Schema<StoredTagKey>(
  { group: { type: String, default: null }, key: { type: String, required: true }, activatedAt: Date, activatedBy: String },
  { _id: false },
);
const DimensionSchema = new Schema<StoredDimension>(
  {
    name: { type: String, required: true },
    description: String,
    rules: { type: [new Schema({ expr: String, value: String }, { _id: false })], default: [] },
    defaultValue: { type: String, required: true },
    version: { type: Number, required: true },
    createdAt: Date,
    updatedAt: Date,
    updatedBy: String,
  },
  { _id: false },
);

const SplitSchema = new Schema<StoredSplit>(
  {
    name: { type: String, required: true },
    source: { type: String, required: true },
    target: { type: String, required: true },
    method: { type: String, required: true },
    targets: { type: [new Schema({ value: String, percent: Number }, { _id: false })], default: [] },
  },
  { _id: false },
);

export const AllocationSettingsSchema = new Schema<AllocationSettings>(
  {
    revision: { type: Number, default: 0 },
    rollupRevision: Number,
    splits: { type: [SplitSchema], default: [] },
    providers: { type: [new Schema({ name: String, aliases: [String] }, { _id: false })], default: [] },
    tagKeys: { type: [TagKeySchema], default: [] },
    dimensions: { type: [DimensionSchema], default: [] },
  },
  { collection: 'allocation_settings', versionKey: false },
);
AllocationSettingsSchema.plugin(tenantScopedPlugin);
AllocationSettingsSchema.index({ tenantId: 1 }, { unique: true });

/** One saved version of a dimension (its history: who changed what and when). */
export interface DimensionVersion {
  tenantId: string;
  name: string;
  version: number;
  change: 'created' | 'updated' | 'deleted';
  description?: string;
  rules: Array<{ expr: string; value: string }>;
  defaultValue: string;
  changedAt: Date;
  changedBy: string;
}

export const DimensionVersionSchema = new Schema<DimensionVersion>(
  {
    name: { type: String, required: true },
    version: { type: Number, required: true },
    change: { type: String, required: true },
    description: String,
    rules: { type: [new Schema({ expr: String, value: String }, { _id: false })], default: [] },
    defaultValue: String,
    changedAt: Date,
    changedBy: String,
  },
  { collection: 'allocation_dimension_versions', versionKey: false },
);
DimensionVersionSchema.plugin(tenantScopedPlugin);
DimensionVersionSchema.index({ tenantId: 1, name: 1, version: -1 }, { unique: true });
