import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BudgetExceededError, ByteBudget } from './byte-budget';

const sink = () => new Writable({ write: (_chunk, _encoding, done) => done() });
const chunks = (count: number, size: number) => Readable.from(Array.from({ length: count }, () => Buffer.alloc(size)));

describe('ByteBudget', () => {
  it('lets streams through while the shared total stays within the limit', async () => {
    const budget = new ByteBudget(1000);
    await pipeline(chunks(4, 100), budget.meter(), sink());
    await pipeline(chunks(6, 100), budget.meter(), sink());
    expect(budget.bytes).toBe(1000);
  });

  it('fails as soon as the shared total passes the limit, without reading the rest', async () => {
    const budget = new ByteBudget(1000);
    await pipeline(chunks(6, 100), budget.meter(), sink());
    let produced = 0;
    const endless = new Readable({
      read() {
        produced++;
        this.push(Buffer.alloc(100));
      },
    });
    await expect(pipeline(endless, budget.meter(), sink())).rejects.toBeInstanceOf(BudgetExceededError);
    // Only what stream buffering had already pulled (16 KiB high-water marks) is read, never the endless rest.
    expect(produced).toBeLessThan(500);
  });
});
