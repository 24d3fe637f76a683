import { exclusionOf, HiddenEntry, hiddenUploads, ImportView, ImportViewRepository, ImportViews, MAX_VIEW_ATTEMPTS } from './import-views';

/**
 * The import view's rules (docs/rollups.md, "What a concurrent reader sees"): what each change
 * hides and shows, that a publication is one write even when another change lands between its read
 * and its write, and the filter readers apply. The store is an in-memory stand-in with the same
 * conditional write; import-views.db.spec.ts runs the same against a database.
 */

const SINCE = new Date('2026-01-01T00:00:00Z');
const scope = (uploadRefId: string, billingPeriod: string, billingAccountId = 'a1') => ({
  uploadRefId,
  providerName: 'aws',
  billingAccountId,
  billingPeriod,
});

/** The repository's contract: `write` succeeds only at the version read. `beforeWrite` lets a test slip a change in. */
class FakeViews {
  stored: ImportView = { version: 0, hidden: [] };
  readonly written: ImportView[] = [];
  beforeWrite: (() => Promise<void>) | null = null;

  readonly current = jest.fn(async () => structuredClone(this.stored));

  readonly write = jest.fn(async (_tenantId: string, version: number, hidden: HiddenEntry[]) => {
    const hook = this.beforeWrite;
    this.beforeWrite = null;
    if (hook) await hook();
    if (version !== this.stored.version) return false;
    this.stored = { version: version + 1, hidden: structuredClone(hidden) };
    this.written.push(structuredClone(this.stored));
    return true;
  });
}

function world() {
  const repository = new FakeViews();
  const views = new ImportViews(repository as unknown as ImportViewRepository);
  return { repository, views };
}

describe('ImportViews: hide, publish, release', () => {
  it('hides an importing upload whole, once: hiding it again (a retry of the attempt) writes nothing', async () => {
    const { repository, views } = world();
    await views.hide('t1', 'new', SINCE);
    await views.hide('t1', 'new', new Date());
    expect(repository.write).toHaveBeenCalledTimes(1);
    expect(repository.stored).toEqual({ version: 1, hidden: [{ uploadRefId: 'new', whole: true, since: SINCE }] });
    expect(await views.exclusion('t1')).toEqual({ $nor: [{ uploadRefId: 'new' }] });
  });

  it('publishes in one write: the upload shown and the scopes it replaces hidden at the same instant', async () => {
    const { repository, views } = world();
    await views.hide('t1', 'new', SINCE);
    await views.publish('t1', 'new', [scope('old', '202401'), scope('old', '202402')], SINCE);
    expect(repository.written).toHaveLength(2);
    expect(repository.stored.hidden).toEqual([
      { ...scope('old', '202401'), whole: false, since: SINCE, by: 'new' },
      { ...scope('old', '202402'), whole: false, since: SINCE, by: 'new' },
    ]);
    expect(await views.exclusion('t1')).toEqual({
      $nor: [{ uploadRefId: 'old', providerName: 'aws', billingAccountId: 'a1', billingPeriod: { $in: ['202401', '202402'] } }],
    });
  });

  it('publishes exactly once when another change lands between its read and its write: it reads again and writes both', async () => {
    const { repository, views } = world();
    await views.hide('t1', 'new', SINCE);
    // another import starts while this one publishes
    repository.beforeWrite = () => views.hide('t1', 'other', SINCE);
    await views.publish('t1', 'new', [scope('old', '202401')], SINCE);
    expect(repository.write).toHaveBeenCalledTimes(4); // hide new, publish (refused), hide other, publish again
    expect(repository.stored.hidden).toEqual([
      { uploadRefId: 'other', whole: true, since: SINCE },
      { ...scope('old', '202401'), whole: false, since: SINCE, by: 'new' },
    ]);
    // no state ever stored shows the new upload beside the rows it replaces, or neither
    for (const state of repository.written) {
      const newHidden = hiddenUploads(state.hidden).has('new');
      const oldHidden = state.hidden.some((entry) => entry.uploadRefId === 'old');
      expect(newHidden).toBe(!oldHidden);
    }
  });

  it('loses no change when many imports change the view at once (each one retried until it writes)', async () => {
    const { repository, views } = world();
    const ids = Array.from({ length: 12 }, (_, i) => `u${i}`);
    await Promise.all(ids.map((id) => views.hide('t1', id, SINCE)));
    expect([...hiddenUploads(repository.stored.hidden)].sort()).toEqual([...ids].sort());
    await Promise.all(ids.map((id, i) => views.publish('t1', id, [scope('old', `2024${String(i + 1).padStart(2, '0')}`)], SINCE)));
    expect(hiddenUploads(repository.stored.hidden).size).toBe(0);
    expect(repository.stored.hidden).toHaveLength(12);
  });

  it('gives up after MAX_VIEW_ATTEMPTS conflicts in a row', async () => {
    const { repository, views } = world();
    repository.write.mockImplementation(async () => false);
    await expect(views.hide('t1', 'new')).rejects.toThrow(/kept changing/);
    expect(repository.write).toHaveBeenCalledTimes(MAX_VIEW_ATTEMPTS);
  }, 20_000);

  it('releases a scope once deleted, and a whole upload with every entry of it', async () => {
    const { views, repository } = world();
    await views.hide('t1', 'failed', SINCE);
    await views.publish('t1', 'new', [scope('old', '202401'), scope('old', '202402'), scope('older', '202401')], SINCE);
    await views.release('t1', [scope('old', '202401')]);
    expect(repository.stored.hidden.map((entry) => [entry.uploadRefId, entry.billingPeriod])).toEqual([
      ['failed', undefined],
      ['old', '202402'],
      ['older', '202401'],
    ]);
    await views.release('t1', [{ uploadRefId: 'old' }, { uploadRefId: 'failed' }]);
    expect(repository.stored.hidden.map((entry) => entry.uploadRefId)).toEqual(['older']);
    const writes = repository.write.mock.calls.length;
    await views.release('t1', [scope('gone', '202401')]);
    await views.release('t1', []);
    expect(repository.write).toHaveBeenCalledTimes(writes);
  });

  it('drops what an earlier attempt of the upload published and never released (a redo after a crash names what is left)', async () => {
    const { views, repository } = world();
    await views.publish('t1', 'new', [scope('old', '202401'), scope('older', '202401')], SINCE);
    await views.publish('t1', 'other', [scope('old', '202402')], SINCE);
    // the first attempt crashed after deleting `older`'s rows (and superseding it): the redo finds `old` only
    await views.hide('t1', 'new', SINCE);
    await views.publish('t1', 'new', [scope('old', '202401')], SINCE);
    expect(repository.stored.hidden.map((entry) => [entry.uploadRefId, entry.billingPeriod, entry.by])).toEqual([
      ['old', '202402', 'other'],
      ['old', '202401', 'new'],
    ]);
  });

  it('hides an upload replaced whole (an extension flow’s earlier file) with `{ uploadRefId }`', async () => {
    const { views } = world();
    await views.publish('t1', 'flow-2', [{ uploadRefId: 'flow-1' }], SINCE);
    expect(await views.exclusion('t1')).toEqual({ $nor: [{ uploadRefId: 'flow-1' }] });
  });
});

describe('exclusionOf (the filter readers apply to line items and rollup rows)', () => {
  const whole = (uploadRefId: string): HiddenEntry => ({ uploadRefId, whole: true, since: SINCE });
  const part = (uploadRefId: string, billingPeriod: string | null, billingAccountId: string | null = 'a1'): HiddenEntry => ({
    ...scope(uploadRefId, '', 'x'),
    billingAccountId,
    billingPeriod,
    whole: false,
    since: SINCE,
  });

  it('is empty when nothing is hidden', () => {
    expect(exclusionOf([])).toEqual({});
  });

  it('leaves out uploads hidden whole by id, one or many', () => {
    expect(exclusionOf([whole('u2')])).toEqual({ $nor: [{ uploadRefId: 'u2' }] });
    expect(exclusionOf([whole('u2'), whole('u1')])).toEqual({ $nor: [{ uploadRefId: { $in: ['u1', 'u2'] } }] });
  });

  it('leaves out scopes by upload, provider, billing account and billing period, the periods of one account together', () => {
    expect(exclusionOf([part('old', '202401'), part('old', '202402'), part('old', '202401', 'a2'), part('older', '202401')])).toEqual({
      $nor: [
        { uploadRefId: 'old', providerName: 'aws', billingAccountId: 'a1', billingPeriod: { $in: ['202401', '202402'] } },
        { uploadRefId: 'old', providerName: 'aws', billingAccountId: 'a2', billingPeriod: '202401' },
        { uploadRefId: 'older', providerName: 'aws', billingAccountId: 'a1', billingPeriod: '202401' },
      ],
    });
  });

  it('folds the scopes of an upload hidden whole into it, and keeps a missing scope field as null (as the deletion matches it)', () => {
    expect(exclusionOf([part('u1', '202401'), whole('u1'), part('u2', null, null)])).toEqual({
      $nor: [{ uploadRefId: 'u1' }, { uploadRefId: 'u2', providerName: 'aws', billingAccountId: null, billingPeriod: null }],
    });
  });
});
