import type { Connection } from 'mongoose';
import { currentRequestSignal } from '@lib/core';

/**
 * The kinds of database operation, each with its own time limit (`maxTimeMS`): reads (find,
 * count, pages), aggregations, single-document writes, and writes of many documents (bulk writes
 * and `updateMany`/`deleteMany`, mostly by jobs).
 */
export type OperationKind = 'read' | 'aggregate' | 'write' | 'bulk';
export type TimeLimits = Record<OperationKind, number>;

export const DEFAULT_TIME_LIMITS: TimeLimits = { read: 5_000, aggregate: 15_000, write: 5_000, bulk: 120_000 };

const limitsOf = new WeakMap<Connection, TimeLimits>();

/** Set once per connection, by `DatabaseModule` (from `MONGODB_MAX_TIME_*_MS`). */
export function setTimeLimits(connection: Connection, limits: TimeLimits): void {
  limitsOf.set(connection, limits);
  // mongoose's own default for every query made on the connection outside the repositories
  connection.set('maxTimeMS', limits.read);
}

export interface OperationOptions {
  maxTimeMS: number;
  /** Reads and aggregations of an HTTP request stop when its client goes away. */
  signal?: AbortSignal;
}

/**
 * The options every operation on `connection` carries: its kind's `maxTimeMS` (the server stops
 * it past that and answers `MaxTimeMSExpired`, a 503 `DATABASE_TIMEOUT` with `Retry-After`) and,
 * for reads and aggregations run for an HTTP request, the request's abort signal. Writes are
 * never abandoned half-way for a client that left: they finish, bounded by their own limit.
 */
export function operationOptions(connection: Connection, kind: OperationKind): OperationOptions {
  const maxTimeMS = (limitsOf.get(connection) ?? DEFAULT_TIME_LIMITS)[kind];
  const signal = kind === 'read' || kind === 'aggregate' ? currentRequestSignal() : undefined;
  return signal ? { maxTimeMS, signal } : { maxTimeMS };
}
