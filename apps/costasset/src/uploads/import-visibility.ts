import { evaluateFilter, FilterVerdict } from '../expressions';
import { PermanentJobError } from '../jobs/job-handler';

const MAX_NAMED_ACCOUNTS = 100;
/** What an import knows of a file before reading it: a GPD folder names its provider, account and period. */
const LAYOUT_FIELDS: ReadonlySet<string> = new Set(['providerName', 'billingAccountId', 'period']);

/**
 * Holds one import to the visibility it was asked within. A row outside it is not written, and
 * from the first one on nothing more is: the import is then refused as a whole, naming every
 * (provider, billing account) outside, and keeps nothing. `filter: null` is a System Admin's
 * import, which sees everything.
 */
export class ImportVisibility {
  private readonly outside = new Set<string>();

  constructor(readonly filter: Record<string, unknown> | null) {}

  /** Whether a row (as it would be stored) may be written. */
  admits(row: Readonly<Record<string, unknown>>): boolean {
    if (this.filter && evaluateFilter(this.filter, row) !== true) this.refuse(String(row.providerName), String(row.billingAccountId));
    return this.outside.size === 0;
  }

  /** Checks a GPD file by its folder before any row is read: `undefined` leaves the decision to its rows. */
  checkLayout(providerName: string, billingAccountId: string, period: string): FilterVerdict {
    if (!this.filter) return true;
    const verdict = evaluateFilter(this.filter, { providerName, billingAccountId, period }, LAYOUT_FIELDS);
    if (verdict === false) this.refuse(providerName, billingAccountId);
    return verdict;
  }

  get refused(): boolean {
    return this.outside.size > 0;
  }

  /** The job's failure: every account outside (the first hundred), as rejected rows of the report. */
  refusal(details: Record<string, unknown> = {}): PermanentJobError {
    const accounts = [...this.outside];
    const reason = (account: string) =>
      `IMPORT_OUTSIDE_VISIBILITY: billing account ${account} is outside the visibility of the user who asked for the import`;
    return new PermanentJobError(
      `IMPORT_OUTSIDE_VISIBILITY: rows of ${accounts.length} billing account(s) outside the importer's ` +
        `visibility (${accounts.slice(0, 5).join(', ')}${accounts.length > 5 ? ', …' : ''}); nothing was kept`,
      { ...details, errors: accounts.map((account) => ({ file: '', line: 0, reason: reason(account) })) },
    );
  }

  private refuse(providerName: string, billingAccountId: string): void {
    if (this.outside.size < MAX_NAMED_ACCOUNTS) this.outside.add(`${providerName}/${billingAccountId}`);
  }
}
