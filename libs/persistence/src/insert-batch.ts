import { Types } from 'mongoose';
import { DocumentBytes } from './bson-documents';

/** mongod's largest document (the embedded store's is the same). */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;
/** What a line item's BSON takes, about (a first guess of a batch's buffer, which grows past it). */
const ESTIMATED_DOCUMENT_BYTES = 2048;

/**
 * The documents of one bulk insert into one collection, each stamped with its tenant (and, when
 * encoded, an `_id`, as `insertMany` gives it) when it is added. With `encode`, a document is
 * encoded at once (DocumentBytes) and the caller's object is not kept; one the encoder leaves to
 * the driver, or over the document size limit, is kept as it is for `insertMany`.
 */
export class InsertBatch {
  readonly encoded: DocumentBytes;
  readonly objects: object[] = [];

  constructor(
    readonly tenantId: string,
    private readonly encode: boolean,
    expectedDocuments = 0,
  ) {
    this.encoded = new DocumentBytes(encode ? expectedDocuments * ESTIMATED_DOCUMENT_BYTES : 0);
  }

  get length(): number {
    return this.encoded.length + this.objects.length;
  }

  /**
   * A document already in BSON, without `_id` (given one here) and holding its `tenantId` (the
   * caller's to guarantee: `TenantRepository.aggregateInto` sets it in the pipeline): kept as it is.
   */
  addEncoded(bson: Uint8Array): void {
    this.encoded.pushWithId(bson, new Types.ObjectId());
  }

  add(doc: object): void {
    const stamped = doc as { tenantId?: string; _id?: unknown };
    stamped.tenantId = this.tenantId;
    if (!this.encode) {
      this.objects.push(doc);
      return;
    }
    if (stamped._id == null) stamped._id = new Types.ObjectId();
    if (!this.encoded.push(doc, MAX_DOCUMENT_BYTES)) this.objects.push(doc);
  }
}
