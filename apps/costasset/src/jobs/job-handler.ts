import { DiscoveryService } from '@nestjs/core';
import type { JobType } from './job-types';
import type { ProgressUnit } from './schemas/job.schema';

/** More about progress than `done` of `total`. */
export interface ProgressDetail {
  /** Rows read so far, when the unit is not rows. */
  rows?: number;
}

/** What a handler sees of the job it runs. */
export interface JobContext<P = Record<string, unknown>> {
  tenantId: string;
  jobId: string;
  payload: P;
  /** 1 on the first delivery of this run. */
  attempt: number;
  /**
   * Records progress (`done` of `total` in `unit`: bytes, rows, files …; `rows` read so far when the
   * unit is not rows), extends the delivery's ack deadline, and throws `JobTerminatedError` if
   * termination was asked for.
   */
  progress(done: number, total: number, detail?: ProgressDetail): Promise<void>;
  /**
   * Set when the run resumes after its children (`AwaitChildren`) all succeeded: what each one
   * answered, in the order they were asked for.
   */
  children?: ChildOutcome[];
}

/** A child job's outcome, as its parent reads it. */
export interface ChildOutcome {
  result: Record<string, unknown>;
  handoff: Record<string, unknown>;
}

/**
 * What a handler answers to spread its work over child jobs (one per payload, on the work queue
 * every instance takes from): the job stays `running` without holding a worker while they run,
 * and its handler runs again with `context.children` once the last one succeeded. A child that
 * fails (after its own retries) or is terminated ends the parent the same way; terminating the
 * parent stops its children.
 */
export class AwaitChildren {
  constructor(
    readonly type: JobType,
    readonly payloads: Record<string, unknown>[],
  ) {}
}

/** What a child job answers: its `result`, as any job's, and a `handoff` for its parent only. */
export class ChildResult {
  constructor(
    readonly result: Record<string, unknown>,
    readonly handoff: Record<string, unknown>,
  ) {}
}

/**
 * What a handler answers when its work ended but left part of the input out (rows rejected beyond
 * the threshold): the job ends `completed_with_errors` with this result, never plain `succeeded`.
 */
export class CompletedWithErrors {
  constructor(readonly result: Record<string, unknown>) {}
}

/**
 * Declares a provider as the handler of one job type. The runner finds it at start-up, and
 * start-up fails when a type of `JOB_TYPES` has no handler or two.
 */
export const JobHandlerFor = DiscoveryService.createDecorator<JobType>();

export interface JobHandler<P = Record<string, unknown>> {
  /** What the `done` and `total` of `progress()` count (shown as `progress.unit`). */
  readonly progressUnit: ProgressUnit;
  /** Runs one attempt. Must be idempotent: a crash or an error makes the same job run again. */
  run(context: JobContext<P>): Promise<Record<string, unknown> | CompletedWithErrors | AwaitChildren | ChildResult>;
  /** Called once when the job ends failed (permanent error or last attempt). */
  onFailed?(context: { tenantId: string; jobId: string; payload: P }, reason: string): Promise<void>;
  /** Called once when the job ends terminated. */
  onTerminated?(context: { tenantId: string; jobId: string; payload: P }): Promise<void>;
}

/** A failure that another attempt cannot fix (e.g. a malformed archive): the job fails at once. */
export class PermanentJobError extends Error {
  constructor(
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export class JobTerminatedError extends Error {
  constructor() {
    super('terminated on request');
  }
}

/** The job stopped being this attempt's: another instance ended it (its heartbeat was taken for lost). */
export class JobLostError extends Error {
  constructor(readonly status: string) {
    super(`the job was ended elsewhere (${status}) while this attempt ran`);
  }
}
