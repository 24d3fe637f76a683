import { isTruthyFlag, toNumber, type Document } from './bson-values';
import { commandError } from './errors';

/** mongod's limit for integer parameters such as cursorTimeoutMillis. */
const MAX_INT32 = 2_147_483_647;

interface ParameterDefinition {
  parse(value: unknown): boolean | number | undefined;
}

const booleanParameter: ParameterDefinition = {
  parse: (value) => (typeof value === 'boolean' || toNumber(value) !== undefined ? isTruthyFlag(value) : undefined),
};

function integerParameter(min: number, max: number): ParameterDefinition {
  return {
    parse: (value) => {
      const n = toNumber(value);
      return n !== undefined && Number.isInteger(n) && n >= min && n <= max ? n : undefined;
    },
  };
}

/** The parameters this server knows (mongod's names); everything else is refused as unrecognized. */
const DEFINITIONS = {
  /** Refuse queries that need a collection scan. */
  notablescan: booleanParameter,
  /**
   * Longest stretch of work (ms) an operation runs before it yields to the other connections.
   * mongod's default is 10 ms (it yields its locks; other operations run on other threads); this
   * single-threaded server serves everyone between slices, so its default is shorter.
   */
  internalQueryExecYieldPeriodMS: integerParameter(0, MAX_INT32),
  /** Idle cursors are closed after this many milliseconds (mongod's default: 10 minutes). */
  cursorTimeoutMillis: integerParameter(0, Number.MAX_SAFE_INTEGER),
} as const;

export type ParameterName = keyof typeof DEFINITIONS;

export const DEFAULT_YIELD_PERIOD_MS = 2;
export const DEFAULT_CURSOR_TIMEOUT_MS = 600_000;

/** Server parameters (mongod's setParameter / getParameter and `--setParameter name=value`). */
export class ServerParameters {
  notablescan = false;
  internalQueryExecYieldPeriodMS = DEFAULT_YIELD_PERIOD_MS;
  cursorTimeoutMillis = DEFAULT_CURSOR_TIMEOUT_MS;

  constructor(initial: Partial<Record<ParameterName, boolean | number>> = {}) {
    for (const [name, value] of Object.entries(initial)) if (value !== undefined) this.set(name, value);
  }

  static isKnown(name: string): name is ParameterName {
    return Object.prototype.hasOwnProperty.call(DEFINITIONS, name);
  }

  /** Sets a parameter from a command or command-line value; throws mongod's errors for bad ones. */
  set(name: string, value: unknown): void {
    if (!ServerParameters.isKnown(name)) {
      throw commandError('InvalidOptions', `attempted to set unrecognized parameter [${name}], use help:true to see options `);
    }
    const parsed = DEFINITIONS[name].parse(value);
    if (parsed === undefined) throw commandError('BadValue', `Invalid value for parameter ${name}: ${String(value)}`);
    (this as Record<ParameterName, boolean | number>)[name] = parsed;
  }

  values(): Document {
    return {
      notablescan: this.notablescan,
      internalQueryExecYieldPeriodMS: this.internalQueryExecYieldPeriodMS,
      cursorTimeoutMillis: this.cursorTimeoutMillis,
    };
  }
}

/** Parses `name=value` as given to `--setParameter` (booleans and integers). */
export function parseParameterSetting(setting: string): { name: string; value: boolean | number } {
  const match = /^([A-Za-z]\w*)=(.+)$/.exec(setting);
  if (!match) throw new Error(`invalid --setParameter ${setting} (expected name=value)`);
  const [, name, raw] = match;
  const value = raw === 'true' ? true : raw === 'false' ? false : Number(raw);
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`invalid value in --setParameter ${setting}`);
  return { name, value };
}
