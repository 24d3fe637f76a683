import { AsyncLocalStorage } from 'node:async_hooks';
import { ProblemException } from './problem';

/** What the work of one HTTP request carries down to the repositories. */
export interface RequestContext {
  /** Aborted when the client goes away before the answer: its database reads stop. */
  signal: AbortSignal;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runInRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

/** The signal of the HTTP request this code runs for; `undefined` in jobs, event handlers and start-up. */
export function currentRequestSignal(): AbortSignal | undefined {
  return storage.getStore()?.signal;
}

/** Why a request's database reads were stopped: its client closed the connection (nobody sees this answer). */
export class RequestAbandoned extends ProblemException {
  constructor() {
    super(503, 'REQUEST_ABANDONED', 'The client closed the connection before the answer');
  }
}
