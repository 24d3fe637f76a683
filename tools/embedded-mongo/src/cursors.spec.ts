import { Long } from 'bson';
import { CursorRegistry } from './cursors';
import { releaseDroppedMemory } from './memory-release';
import { unlimitedOperation } from './operation';

jest.mock('./memory-release', () => ({ releaseDroppedMemory: jest.fn() }));

const released = releaseDroppedMemory as jest.MockedFunction<typeof releaseDroppedMemory>;
const docs = (count: number) => Array.from({ length: count }, (_, index) => ({ _id: index }));
/** Cursor ids are numbered from 1 in each registry. */
const cursorId = (n: number) => Long.fromNumber(n);

describe('CursorRegistry: the results of a large cursor are given back when it closes', () => {
  beforeEach(() => released.mockClear());

  it('asks for a collection once a large result set is drained, and not for a small one', async () => {
    const cursors = new CursorRegistry(() => 600_000);
    await cursors.openCursor(unlimitedOperation(), 'db.c', docs(20_000));
    const id = cursorId(1);
    expect(cursors.has(id)).toBe(true);
    for (let round = 0; round < 10 && cursors.has(id); round++) await cursors.getMore(unlimitedOperation(), id, 5_000);
    expect(cursors.has(id)).toBe(false);
    expect(released).toHaveBeenCalledTimes(1);
    expect(released.mock.calls[0][0]).toBeGreaterThanOrEqual(20_000 * 512);

    await cursors.openCursor(unlimitedOperation(), 'db.c', docs(500));
    const small = cursorId(2);
    while (cursors.has(small)) await cursors.getMore(unlimitedOperation(), small, 100);
    expect(released).toHaveBeenCalledTimes(1);
    cursors.closeAll();
  });

  it('asks for a collection when a large cursor is killed or its client leaves', async () => {
    const cursors = new CursorRegistry(() => 600_000);
    await cursors.openCursor(unlimitedOperation(), 'db.c', docs(15_000));
    expect(cursors.kill(cursorId(1))).toBe(true);
    expect(released).toHaveBeenCalledTimes(1);
    await cursors.openCursor(unlimitedOperation(), 'db.c', docs(15_000));
    cursors.closeConnection(0);
    expect(released).toHaveBeenCalledTimes(2);
    cursors.closeAll();
  });
});
