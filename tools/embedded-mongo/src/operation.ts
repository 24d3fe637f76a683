import { toNumber, type Document } from './bson-values';
import { CommandError, commandError } from './errors';

/** How many units of work pass between two looks at the clock (a look costs ~30 ns). */
const CHECK_EVERY = 64;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** mongod's reading of `maxTimeMS` (0 or absent: no limit); a bad value is its BadValue. */
export function parseMaxTimeMS(command: Document, field = 'maxTimeMS'): number {
  const raw = command[field];
  if (raw === undefined || raw === null) return 0;
  const n = toNumber(raw);
  if (n === undefined || typeof raw === 'boolean') throw commandError('BadValue', `${field} must be a number`);
  if (n < 0 || n > 2_147_483_647) throw commandError('BadValue', `${Math.trunc(n)} value for ${field} is out of range`);
  if (!Number.isInteger(n)) throw commandError('BadValue', `${field} has non-integral value`);
  return n;
}

export const maxTimeExpired = (): CommandError => commandError('MaxTimeMSExpired', 'operation exceeded time limit');

/**
 * One command in progress (mongod's OperationContext): its time limit, whether it was killed
 * (killOp, its client gone), and the cooperative scheduling of its work. Long loops call `tick()`
 * for every unit of work and, when it answers true, `await yieldTurn()`: the event loop then
 * serves the other connections before the work goes on, so one long scan or aggregation never
 * holds the whole server. Interruptions are noticed at those same points, as mongod notices them
 * at its yields.
 */
export class Operation {
  /** performance.now() past which the operation fails with MaxTimeMSExpired (Infinity: no limit). */
  deadline = Number.POSITIVE_INFINITY;
  numYields = 0;
  /** False for explain: mongod's explain plans anew (showing every candidate) instead of using the plan cache. */
  usesPlanCache = true;
  readonly startedAt: Date;
  private killedWith: CommandError | null = null;
  private sliceStart = performance.now();
  private countdown = CHECK_EVERY;

  constructor(
    readonly opid: number,
    readonly connectionId: number,
    /** The client's address (`host:port`). */
    readonly client: string,
    readonly command: Document,
    /** Longest slice of work before a yield, in ms (internalQueryExecYieldPeriodMS). */
    private readonly yieldPeriodMs: number,
    /**
     * performance.now() when the command was read off its connection. The time limit counts from
     * there: a command that waited behind the earlier commands of its connection spent its time
     * waiting, as a mongod operation waiting for a ticket or a lock does.
     */
    readonly started = performance.now(),
  ) {
    this.startedAt = new Date(Date.now() - (performance.now() - started));
  }

  get name(): string {
    return Object.keys(this.command)[0] ?? '';
  }

  /** Sets the time limit from the command's receipt (a command's maxTimeMS, or a cursor's remaining time). */
  limitTo(ms: number): void {
    if (ms > 0) this.deadline = Math.min(this.deadline, this.started + ms);
  }

  get killed(): boolean {
    return this.killedWith !== null;
  }

  /** Marks the operation killed; it stops at its next interruption check with this error. */
  kill(error: CommandError): void {
    this.killedWith ??= error;
  }

  /** Throws if the operation was killed or ran out of time. */
  checkForInterrupt(now = performance.now()): void {
    if (this.killedWith) throw this.killedWith;
    if (now >= this.deadline) {
      this.killedWith = maxTimeExpired();
      throw this.killedWith;
    }
  }

  /** Counts one unit of work; true when the current slice is used up and the caller should yield. */
  tick(): boolean {
    if (--this.countdown > 0) return false;
    this.countdown = CHECK_EVERY;
    return this.due();
  }

  /** Looks at the clock now (for coarse units of work such as a batch of documents). */
  due(): boolean {
    const now = performance.now();
    this.checkForInterrupt(now);
    return now - this.sliceStart >= this.yieldPeriodMs;
  }

  /** Lets the event loop serve other connections, then goes on (or throws if interrupted meanwhile). */
  async yieldTurn(): Promise<void> {
    this.checkForInterrupt();
    this.numYields++;
    await nextTurn();
    this.checkForInterrupt();
    this.sliceStart = performance.now();
    this.countdown = CHECK_EVERY;
  }

  /** `yieldTurn()` when the slice is used up (for loops over coarse units of work). */
  async maybeYield(): Promise<void> {
    if (this.due()) await this.yieldTurn();
  }
}

/** Every operation in progress, by opid (currentOp, killOp, and a client's disconnection). */
export class OperationRegistry {
  private readonly running = new Map<number, Operation>();
  private nextOpid = 1;

  start(connectionId: number, client: string, command: Document, yieldPeriodMs: number, receivedAt = performance.now()): Operation {
    const operation = new Operation(this.nextOpid++, connectionId, client, command, yieldPeriodMs, receivedAt);
    this.running.set(operation.opid, operation);
    return operation;
  }

  finish(operation: Operation): void {
    this.running.delete(operation.opid);
  }

  get(opid: number): Operation | undefined {
    return this.running.get(opid);
  }

  all(): Operation[] {
    return [...this.running.values()];
  }

  /** Kills every operation of a connection whose client went away (mongod's ClientDisconnect). */
  killConnection(connectionId: number): void {
    for (const operation of this.running.values()) {
      if (operation.connectionId === connectionId) {
        operation.kill(commandError('ClientDisconnect', 'operation was interrupted because a client disconnected'));
      }
    }
  }
}

/** An operation that never yields and has no limit (internal work: recovery, tests of pure functions). */
export function unlimitedOperation(): Operation {
  return new Operation(0, 0, '', {}, Number.POSITIVE_INFINITY);
}
