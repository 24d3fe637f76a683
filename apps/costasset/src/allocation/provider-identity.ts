/** A provider a tenant names, and the other names its files give it. */
export interface DeclaredProvider {
  name: string;
  aliases: string[];
}

/**
 * One provider, one name (docs/allocation.md, "Provider names"): names that differ only by case
 * are one provider, and so are a declared provider's aliases. Each line item keeps the name its
 * file gave; queries compare and group by the canonical name: the declared one, else a lower-case
 * spelling present (`aws` for `AWS` and `aws`), else the first spelling in code-unit order.
 */
export class ProviderIdentity {
  static readonly NONE = new ProviderIdentity([], []);

  private readonly canonicalByLower = new Map<string, string>();
  private readonly spellings = new Map<string, Set<string>>();

  constructor(declared: readonly DeclaredProvider[], present: readonly string[]) {
    for (const provider of declared)
      for (const name of [provider.name, ...provider.aliases]) this.canonicalByLower.set(name.toLowerCase(), provider.name);
    // a lower-case spelling first (`aws`, as GPD files and the demo data write it), then code-unit order
    const lowerFirst = (a: string, b: string) =>
      Number(a !== a.toLowerCase()) - Number(b !== b.toLowerCase()) || (a < b ? -1 : a > b ? 1 : 0);
    for (const spelling of [...present].sort(lowerFirst)) {
      const lower = spelling.toLowerCase();
      if (!this.canonicalByLower.has(lower)) this.canonicalByLower.set(lower, spelling);
    }
    for (const spelling of [...present, ...declared.flatMap((provider) => [provider.name, ...provider.aliases])]) {
      const canonical = this.canonical(spelling);
      const set = this.spellings.get(canonical) ?? new Set<string>();
      set.add(spelling);
      this.spellings.set(canonical, set);
    }
  }

  canonical(spelling: string): string {
    return this.canonicalByLower.get(spelling.toLowerCase()) ?? spelling;
  }

  /** Every spelling of the provider a name stands for (present or declared), the name included. */
  variants(name: string): string[] {
    return [...new Set([name, ...(this.spellings.get(this.canonical(name)) ?? [])])].sort();
  }

  /** Whether any two spellings present are one provider (else queries need no rewriting). */
  get merges(): boolean {
    return [...this.spellings.entries()].some(([canonical, spellings]) => spellings.size > 1 || !spellings.has(canonical));
  }

  /** A filter with every `providerName` comparison made against all spellings of the provider. */
  filter(filter: unknown): unknown {
    if (Array.isArray(filter)) return filter.map((entry) => this.filter(entry));
    if (!filter || typeof filter !== 'object' || filter instanceof Date) return filter;
    return Object.fromEntries(
      Object.entries(filter as Record<string, unknown>).map(([key, value]) => {
        if (key !== 'providerName') return [key, this.filter(value)];
        const condition = value as Record<string, unknown>;
        if (condition && typeof condition === 'object' && Object.keys(condition).length === 1) {
          if (typeof condition.$eq === 'string') return [key, { $in: this.variants(condition.$eq) }];
          if (typeof condition.$ne === 'string') return [key, { $nin: this.variants(condition.$ne) }];
        }
        return [key, value];
      }),
    );
  }

  /** The canonical name of a document's `providerName`, as an aggregation expression (spellings that differ only). */
  expression(): unknown {
    const branches = [...this.spellings.entries()].flatMap(([canonical, spellings]) =>
      [...spellings]
        .filter((spelling) => spelling !== canonical)
        .map((spelling) => ({ case: { $eq: ['$providerName', { $literal: spelling }] }, then: { $literal: canonical } })),
    );
    return branches.length === 0 ? '$providerName' : { $switch: { branches, default: '$providerName' } };
  }

  /**
   * A pipeline reading canonical names: the leading `$match`'s comparisons take every spelling, and
   * each `$group` key reading `$providerName` reads the canonical name.
   */
  pipeline<T>(stages: readonly T[]): T[] {
    if (!this.merges) return [...stages];
    return stages.map((stage, index) => {
      const record = stage as Record<string, unknown>;
      if (index === 0 && '$match' in record) return { $match: this.filter(record.$match) } as T;
      if ('$group' in record) {
        const group = record.$group as Record<string, unknown>;
        return { $group: { ...group, _id: this.replacePath(group._id) } } as T;
      }
      return stage;
    });
  }

  private replacePath(value: unknown): unknown {
    if (value === '$providerName') return this.expression();
    if (Array.isArray(value)) return value.map((entry) => this.replacePath(entry));
    if (value && typeof value === 'object' && !(value instanceof Date))
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, entry]) => [key, this.replacePath(entry)]));
    return value;
  }
}
