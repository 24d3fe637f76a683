import type { AnyBulkWriteOperation } from 'mongodb';
import { Types } from 'mongoose';
import type { FilterQuery, InsertManyOptions, Model, PipelineStage, ProjectionType, QueryOptions, UpdateQuery } from 'mongoose';
import { ProblemException } from '@lib/core';
import { insertBatch } from './encoded-insert';
import { InsertBatch } from './insert-batch';
import type { TenantOwned } from './tenant-scoped.schema';
import { OperationKind, OperationOptions, operationOptions } from './time-limits';

import type { Paged } from '@lib/core';

type Filter<T> = FilterQuery<T>;
/** Where `aggregateInto` writes: another repository. */
type BatchTarget = { insertBatch(batch: InsertBatch): Promise<number> };
type Lean<T> = T & { _id: Types.ObjectId };

/** The tenant goes last, so a caller-supplied `tenantId` in a filter can never widen the scope. */
function scoped<T>(tenantId: string, filter: Filter<T> = {}): Filter<T> {
  if (!tenantId) throw new Error('tenantId is required');
  return { ...filter, tenantId } as Filter<T>;
}

/** Removes `tenantId` from every operator of an update: records never change tenant. */
function withoutTenant<T>(update: UpdateQuery<T>): UpdateQuery<T> {
  const copy: Record<string, unknown> = { ...(update as Record<string, unknown>) };
  delete copy.tenantId;
  for (const [operator, fields] of Object.entries(copy)) {
    if (operator.startsWith('$') && fields && typeof fields === 'object' && 'tenantId' in fields) {
      const { tenantId: _dropped, ...rest } = fields as Record<string, unknown>;
      copy[operator] = rest;
    }
  }
  return copy as UpdateQuery<T>;
}

/**
 * Base of every repository. Each method takes the tenant first and puts it into the filter, the
 * inserted document or the pipeline's first stage, so that a feature cannot read or write across
 * tenants by forgetting it. Reads are lean (plain objects). Every operation carries the time limit
 * of its kind (`maxTimeMS`), and reads and aggregations made for an HTTP request stop when its
 * client goes away (`operationOptions`).
 */
export abstract class TenantRepository<T extends TenantOwned> {
  /**
   * `insertBulk` encodes the documents itself (`InsertBatch`, each document as it is added: the driver's bytes at about a third
   * of its CPU) and sends them as the driver would: for collections loaded by the million (line items).
   */
  protected readonly encodesBulkInserts: boolean = false;

  protected constructor(protected readonly model: Model<T>) {}

  /** The time limit (and abort signal) of one operation: subclasses pass it to their own driver calls. */
  protected limits(kind: OperationKind): OperationOptions {
    return operationOptions(this.model.db, kind);
  }

  /** Validated, cast and timestamped as `Model.create` would (no schema has save hooks); `insertMany` carries `maxTimeMS`. */
  async create(tenantId: string, doc: Omit<T, 'tenantId'>): Promise<Lean<T>> {
    const [created] = await this.model.insertMany([{ ...doc, tenantId }], this.limits('write') as InsertManyOptions);
    return created.toObject() as Lean<T>;
  }

  find(tenantId: string, filter: Filter<T> = {}, options: QueryOptions<T> = {}, projection?: ProjectionType<T>): Promise<Lean<T>[]> {
    return this.model
      .find(scoped(tenantId, filter), projection, { ...options, ...this.limits('read') })
      .lean<Lean<T>[]>()
      .exec();
  }

  findOne(tenantId: string, filter: Filter<T>, options: QueryOptions<T> = {}): Promise<Lean<T> | null> {
    return this.model
      .findOne(scoped(tenantId, filter), undefined, { ...options, ...this.limits('read') })
      .lean<Lean<T>>()
      .exec();
  }

  /** An id that is not an ObjectId simply matches nothing (the caller answers 404). */
  findById(tenantId: string, id: string): Promise<Lean<T> | null> {
    if (!Types.ObjectId.isValid(id)) return Promise.resolve(null);
    return this.findOne(tenantId, { _id: new Types.ObjectId(id) } as Filter<T>);
  }

  /** The distinct values of `field` (served from an index led by `tenantId` and `field` when there is one). */
  distinct<V>(tenantId: string, field: string, filter: Filter<T> = {}): Promise<V[]> {
    return this.model.distinct(field, scoped(tenantId, filter)).setOptions(this.limits('read')).exec() as Promise<V[]>;
  }

  count(tenantId: string, filter: Filter<T> = {}): Promise<number> {
    return this.model.countDocuments(scoped(tenantId, filter), this.limits('read')).exec();
  }

  exists(tenantId: string, filter: Filter<T>): Promise<boolean> {
    return this.model
      .exists(scoped(tenantId, filter))
      .setOptions(this.limits('read'))
      .then((found) => found !== null);
  }

  async updateOne(tenantId: string, filter: Filter<T>, update: UpdateQuery<T>, options: { upsert?: boolean } = {}): Promise<number> {
    const result = await this.model
      .updateOne(scoped(tenantId, filter), withoutTenant(update), { ...options, ...this.limits('write') })
      .exec();
    return result.matchedCount + (result.upsertedCount ?? 0);
  }

  async updateMany(tenantId: string, filter: Filter<T>, update: UpdateQuery<T>): Promise<number> {
    const result = await this.model.updateMany(scoped(tenantId, filter), withoutTenant(update), this.limits('bulk')).exec();
    return result.modifiedCount;
  }

  findOneAndUpdate(
    tenantId: string,
    filter: Filter<T>,
    update: UpdateQuery<T>,
    options: { upsert?: boolean; new?: boolean } = {},
  ): Promise<Lean<T> | null> {
    return this.model
      .findOneAndUpdate(scoped(tenantId, filter), withoutTenant(update), {
        new: true,
        ...options,
        runValidators: true,
        ...this.limits('write'),
      })
      .lean<Lean<T>>()
      .exec();
  }

  findOneAndDelete(tenantId: string, filter: Filter<T>): Promise<Lean<T> | null> {
    return this.model.findOneAndDelete(scoped(tenantId, filter), this.limits('write')).lean<Lean<T>>().exec();
  }

  async deleteOne(tenantId: string, filter: Filter<T>): Promise<number> {
    return (await this.model.deleteOne(scoped(tenantId, filter), this.limits('write')).exec()).deletedCount;
  }

  async deleteMany(tenantId: string, filter: Filter<T> = {}): Promise<number> {
    return (await this.model.deleteMany(scoped(tenantId, filter), this.limits('bulk')).exec()).deletedCount;
  }

  /**
   * The tenant joins a leading `$match` (one pass over the data) or becomes the first stage.
   * `kind`: `aggregate` for what answers a request (its time limit, stopped when the client
   * leaves), `bulk` for the maintenance work of jobs over many documents (the bulk limit).
   */
  aggregate<R>(tenantId: string, pipeline: PipelineStage[], kind: 'aggregate' | 'bulk' = 'aggregate'): Promise<R[]> {
    return this.model.aggregate<R>(this.scopedPipeline(tenantId, pipeline)).option(this.limits(kind)).exec();
  }

  /** `aggregate` read through a driver cursor in batches: for results too large to hold at once. */
  aggregateStream<R>(tenantId: string, pipeline: PipelineStage[], kind: 'aggregate' | 'bulk' = 'bulk', batchSize = 1000): AsyncIterable<R> {
    return this.model
      .aggregate<R>(this.scopedPipeline(tenantId, pipeline))
      .option(this.limits(kind))
      .cursor({ batchSize }) as unknown as AsyncIterable<R>;
  }

  /**
   * Writes the results of an aggregation of this collection into `target`'s, in batches, each
   * result given the call's tenant and a new `_id` (whatever `_id` the pipeline left is dropped).
   * The results pass through this process as BSON, never decoded nor encoded again: for results
   * too many to hold, which the database makes and keeps (the rows by resource of a large load).
   * Resolves to the count inserted.
   */
  async aggregateInto(tenantId: string, pipeline: PipelineStage[], target: BatchTarget, batchSize = 5000): Promise<number> {
    const stages = this.scopedPipeline(tenantId, [...pipeline, { $unset: '_id' }, { $set: { tenantId: { $literal: tenantId } } }]);
    const { maxTimeMS } = this.limits('bulk');
    const results = this.model.collection.aggregate(stages, { raw: true, batchSize, maxTimeMS }) as unknown as AsyncIterable<Uint8Array>;
    let inserted = 0;
    let batch = new InsertBatch(tenantId, true);
    for await (const bson of results) {
      batch.addEncoded(bson);
      if (batch.length < batchSize) continue;
      inserted += await target.insertBatch(batch);
      batch = new InsertBatch(tenantId, true);
    }
    return inserted + (await target.insertBatch(batch));
  }

  /** The pipeline with the tenant in its leading `$match` (one added when it has none). */
  private scopedPipeline(tenantId: string, pipeline: PipelineStage[]): PipelineStage[] {
    const [first, ...rest] = pipeline;
    return (
      first && '$match' in first
        ? [{ $match: scoped(tenantId, first.$match as Filter<T>) }, ...rest]
        : [{ $match: scoped(tenantId) }, ...pipeline]
    ) as PipelineStage[];
  }

  /**
   * Every matching document, oldest first, read through a driver cursor in batches: for exports
   * and other streams that must never hold the whole result.
   */
  stream(tenantId: string, filter: Filter<T> = {}, batchSize = 1000): AsyncIterable<Lean<T>> {
    return this.model.find(scoped(tenantId, filter)).sort({ _id: 1 }).lean().cursor({ batchSize }) as unknown as AsyncIterable<Lean<T>>;
  }

  /**
   * Keyset pagination on `_id` (oldest first, or newest first): stable under inserts, no skip
   * cost. A cursor that is not one this method handed out is a 400 `INVALID_CURSOR`: restarting at
   * the first page would loop a client holding a corrupted cursor forever.
   */
  async page(
    tenantId: string,
    filter: Filter<T>,
    limit: number,
    cursor?: string,
    order: 'oldest' | 'newest' = 'oldest',
    options: Pick<QueryOptions<T>, 'collation'> = {},
  ): Promise<Paged<Lean<T>>> {
    const direction = order === 'oldest' ? 1 : -1;
    if (cursor !== undefined && !/^[0-9a-f]{24}$/i.test(cursor)) {
      throw new ProblemException(400, 'INVALID_CURSOR', 'cursor must be a nextCursor value returned by this endpoint');
    }
    const after = cursor ? { _id: { [direction === 1 ? '$gt' : '$lt']: new Types.ObjectId(cursor) } } : {};
    const items = await this.find(tenantId, { ...filter, ...after } as Filter<T>, {
      ...options,
      sort: { _id: direction },
      limit: limit + 1,
    });
    const hasMore = items.length > limit;
    const pageItems = hasMore ? items.slice(0, limit) : items;
    return { items: pageItems, nextCursor: hasMore ? String(pageItems[pageItems.length - 1]._id) : null };
  }

  /**
   * Bulk load on the driver, bypassing mongoose hydration (an order of magnitude faster for
   * large loads). Documents must already be valid. The call's tenant is stamped on each document
   * in place (replacing any `tenantId` it held: the stored tenant is always this call's), and each
   * one gets an `_id`, as `insertMany` gives it: no copy of a large load is made. A caller that
   * inserts the same objects again (another tenant, a retry) passes copies without `_id`.
   */
  async insertBulk(tenantId: string, docs: Omit<T, 'tenantId'>[]): Promise<number> {
    if (docs.length === 0) return 0;
    const batch = this.bulkBatch(tenantId, docs.length);
    for (let index = 0; index < docs.length; index++) batch.add(docs[index]);
    return this.insertBatch(batch);
  }

  /**
   * An empty batch for `insertBatch`, stamping `tenantId` on what it is given. With
   * `encodesBulkInserts`, each document is encoded as it is added (InsertBatch): a load that fills
   * batches this way keeps bytes, not objects, until they are written.
   */
  bulkBatch(tenantId: string, expectedDocuments = 0): InsertBatch {
    return new InsertBatch(tenantId, this.encodesBulkInserts, expectedDocuments);
  }

  /** Writes a batch of `bulkBatch` (unordered, as `insertBulk`); resolves to the count inserted. */
  insertBatch(batch: InsertBatch): Promise<number> {
    if (batch.length === 0) return Promise.resolve(0);
    return insertBatch(this.model as never, batch, this.limits('bulk'));
  }

  /** Driver bulkWrite with the tenant put into every filter and every inserted document. */
  async bulkWrite(tenantId: string, operations: AnyBulkWriteOperation<Omit<T, 'tenantId'>>[]): Promise<void> {
    if (operations.length === 0) return;
    const scopedOps = operations.map((op) => scopeBulkOperation(tenantId, op as BulkOperation));
    await this.model.collection.bulkWrite(scopedOps, { ordered: false, ...this.limits('bulk') });
  }
}

type BulkOperation = AnyBulkWriteOperation<Record<string, unknown>>;

function scopeBulkOperation(tenantId: string, op: BulkOperation): BulkOperation {
  const filter = (f: unknown) => ({ ...(f as object), tenantId }) as never;
  const update = (u: unknown) => withoutTenant(u as UpdateQuery<unknown>) as never;
  if ('insertOne' in op) return { insertOne: { document: { ...op.insertOne.document, tenantId } } };
  if ('updateOne' in op)
    return { updateOne: { ...op.updateOne, filter: filter(op.updateOne.filter), update: update(op.updateOne.update) } };
  if ('updateMany' in op)
    return { updateMany: { ...op.updateMany, filter: filter(op.updateMany.filter), update: update(op.updateMany.update) } };
  if ('replaceOne' in op) {
    return {
      replaceOne: { ...op.replaceOne, filter: filter(op.replaceOne.filter), replacement: { ...op.replaceOne.replacement, tenantId } },
    };
  }
  if ('deleteOne' in op) return { deleteOne: { ...op.deleteOne, filter: filter(op.deleteOne.filter) } };
  if ('deleteMany' in op) return { deleteMany: { ...op.deleteMany, filter: filter(op.deleteMany.filter) } };
  throw new Error('Unsupported bulk operation');
}
