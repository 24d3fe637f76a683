/**
 * What an import or an enrichment reports: rows read, written and rejected, the first rejected
 * rows with every problem of each, and every rule that failed with its count and first examples.
 * GPD enrichment, the extension flow and the FOCUS import all report through this one class.
 */
export type RuleSeverity = 'error' | 'warning';

export interface RowProblem {
  /** Stable UPPER_SNAKE rule code, e.g. `DECIMAL_INVALID`. */
  rule: string;
  severity: RuleSeverity;
  message: string;
}

export interface RejectedRow {
  file: string;
  /** Line in the CSV (1 = header) or 1-based row of a Parquet file; 0 for a problem of the file itself. */
  line: number;
  /** Every problem of the row, joined with `; `. */
  reason: string;
  /** The row's FOCUS `Id` when the file has one. */
  id?: string;
}

export interface RuleExample {
  file: string;
  line: number;
  id?: string;
  message: string;
}

export interface RuleCount {
  rule: string;
  severity: RuleSeverity;
  /** Rows (or files, for file rules) that broke the rule. */
  count: number;
  examples: RuleExample[];
}

export interface IngestCounts {
  rowsRead: number;
  rowsWritten: number;
  rowsRejected: number;
  errors: RejectedRow[];
  rules: RuleCount[];
}

export const MAX_REPORTED_ROWS = 100;
export const MAX_RULE_EXAMPLES = 5;

export const problem = (rule: string, message: string, severity: RuleSeverity = 'error'): RowProblem => ({ rule, severity, message });

export class IngestReport {
  rowsRead = 0;
  rowsWritten = 0;
  rowsRejected = 0;
  readonly errors: RejectedRow[] = [];
  private readonly rules = new Map<string, RuleCount>();

  /** Counts the rule of every problem; answers whether the row must be rejected (any error). */
  record(file: string, line: number, problems: readonly RowProblem[], id?: string): boolean {
    for (const found of problems) this.count(found, { file, line, ...(id ? { id } : {}), message: found.message });
    const errors = problems.filter((found) => found.severity === 'error');
    if (errors.length === 0) return false;
    this.rowsRejected++;
    if (this.errors.length < MAX_REPORTED_ROWS) {
      this.errors.push({ file, line, reason: errors.map((found) => found.message).join('; '), ...(id ? { id } : {}) });
    }
    return true;
  }

  /** One report of several (the parts of one upload, imported apart): counts summed, the first rows and examples kept, in order. */
  static merge(reports: readonly IngestCounts[]): IngestReport {
    const merged = new IngestReport();
    for (const report of reports) {
      merged.rowsRead += report.rowsRead;
      merged.rowsWritten += report.rowsWritten;
      merged.rowsRejected += report.rowsRejected;
      merged.errors.push(...report.errors.slice(0, MAX_REPORTED_ROWS - merged.errors.length));
      for (const { rule, severity, count, examples } of report.rules) {
        const entry = merged.rules.get(rule) ?? { rule, severity, count: 0, examples: [] };
        merged.rules.set(rule, entry);
        entry.count += count;
        entry.examples.push(...examples.slice(0, MAX_RULE_EXAMPLES - entry.examples.length));
      }
    }
    return merged;
  }

  /** A rule broken by a file as a whole (a missing column); the file still imports. */
  fileFinding(file: string, found: RowProblem): void {
    this.count(found, { file, line: 0, message: found.message });
  }

  counts(): IngestCounts {
    return {
      rowsRead: this.rowsRead,
      rowsWritten: this.rowsWritten,
      rowsRejected: this.rowsRejected,
      errors: [...this.errors],
      rules: [...this.rules.values()].sort((a, b) => b.count - a.count || a.rule.localeCompare(b.rule)),
    };
  }

  private count(found: RowProblem, example: RuleExample): void {
    let entry = this.rules.get(found.rule);
    if (!entry) {
      entry = { rule: found.rule, severity: found.severity, count: 0, examples: [] };
      this.rules.set(found.rule, entry);
    }
    entry.count++;
    if (entry.examples.length < MAX_RULE_EXAMPLES) entry.examples.push(example);
  }
}

/**
 * How a finished import ends: `failed` when rows were read and none was written,
 * `completed_with_errors` when more than `thresholdPercent` of the rows read were rejected,
 * `succeeded` otherwise.
 */
export type IngestOutcome = 'succeeded' | 'completed_with_errors' | 'failed';

export function outcomeOf(
  counts: Pick<IngestCounts, 'rowsRead' | 'rowsWritten' | 'rowsRejected'>,
  thresholdPercent: number,
): IngestOutcome {
  if (counts.rowsWritten === 0) return 'failed';
  if (counts.rowsRead > 0 && (counts.rowsRejected / counts.rowsRead) * 100 > thresholdPercent) return 'completed_with_errors';
  return 'succeeded';
}
