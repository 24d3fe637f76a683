import { Logger } from '@nestjs/common';

/**
 * The undo log of one request. MongoDB here is standalone (no transactions): every write that
 * succeeded registers how to take it back, and a failure later in the request runs the undo steps
 * in reverse order, so that a refused or failed request leaves nothing behind.
 */
export class Compensation {
  private readonly steps: { label: string; undo: () => Promise<unknown> }[] = [];

  constructor(private readonly logger: Logger) {}

  add(label: string, undo: () => Promise<unknown>): void {
    this.steps.push({ label, undo });
  }

  get size(): number {
    return this.steps.length;
  }

  async run(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step.undo();
      } catch (error) {
        this.logger.error({ err: error, step: step.label }, 'compensation step failed');
      }
    }
  }
}
