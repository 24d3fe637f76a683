import { Transform, TransformCallback } from 'node:stream';

export class BudgetExceededError extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} bytes`);
  }
}

/**
 * Counts the bytes that really flow (whatever an archive header declares) against a budget
 * shared by several streams, and fails the stream as soon as the budget is passed.
 */
export class ByteBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  get bytes(): number {
    return this.used;
  }

  meter(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) => {
        this.used += chunk.length;
        if (this.used > this.limit) done(new BudgetExceededError(this.limit));
        else done(null, chunk);
      },
    });
  }
}
