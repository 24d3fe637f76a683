import type { Document } from './bson-values';
import type { FoldLevel } from './collation';

/** What a command asks of the planner. */
export interface QueryRequest {
  ns: string;
  /** The filter as the client sent it (before collation rewriting). */
  filter: Document;
  sort?: Record<string, 1 | -1>;
  projection?: Document;
  skip?: number;
  limit?: number;
  batchSize?: number;
  hint?: unknown;
  collationLevel: FoldLevel;
  collationSpec?: Document;
}
