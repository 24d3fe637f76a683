/** mongod error codes used by this server (names as mongod reports them in `codeName`). */
export const ErrorCode = {
  InternalError: 1,
  BadValue: 2,
  NoSuchKey: 4,
  FailedToParse: 9,
  Unauthorized: 13,
  TypeMismatch: 14,
  InvalidLength: 16,
  IllegalOperation: 20,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  MaxTimeMSExpired: 50,
  NamespaceExists: 48,
  InvalidIdField: 53,
  CommandNotFound: 59,
  ImmutableField: 66,
  CannotCreateIndex: 67,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  CommandNotSupported: 115,
  CursorInUse: 143,
  CannotIndexParallelArrays: 171,
  QueryPlanKilled: 175,
  InvalidIndexSpecificationOption: 197,
  CursorKilled: 237,
  NotImplemented: 238,
  ClientDisconnect: 279,
  NoQueryExecutionPlans: 291,
  UnsupportedOpQueryCommand: 352,
  DuplicateKey: 11000,
  Interrupted: 11601,
  InvalidPipelineOperator: 168,
  UnrecognizedPipelineStage: 40324,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;

const codeNameByNumber = new Map<number, string>(Object.entries(ErrorCode).map(([name, code]) => [code, name]));

/** Codes mongod reports as `Location<code>` rather than by a symbolic name. */
const locationCodes = new Set<number>([ErrorCode.UnrecognizedPipelineStage]);

export function codeNameFor(code: number): string {
  if (locationCodes.has(code)) return `Location${code}`;
  return codeNameByNumber.get(code) ?? `Location${code}`;
}

/** An error reported to the client as `{ ok: 0, errmsg, code, codeName, ...extra }`. */
export class CommandError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'CommandError';
  }

  toReply(): Record<string, unknown> {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: codeNameFor(this.code), ...this.extra };
  }
}

export function commandError(name: ErrorCodeName, message: string, extra?: Record<string, unknown>): CommandError {
  return new CommandError(ErrorCode[name], message, extra);
}

/** A feature the embedded store deliberately refuses instead of silently mis-handling. */
export function notSupported(what: string): CommandError {
  return commandError('NotImplemented', `embedded-mongo does not support ${what}`);
}

/** Duplicate key violation; the write commands turn it into a writeErrors entry. */
export class DuplicateKeyError extends CommandError {
  constructor(
    message: string,
    readonly keyPattern: Record<string, unknown>,
    readonly keyValue: Record<string, unknown>,
  ) {
    super(ErrorCode.DuplicateKey, message, { keyPattern, keyValue });
    this.name = 'DuplicateKeyError';
  }
}

/**
 * Converts anything thrown while running a command into a mongod-shaped error. Errors from
 * mingo (bad operators, bad arguments) become BadValue with mongod's wording where known.
 */
export function toCommandError(error: unknown): CommandError {
  if (error instanceof CommandError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const queryOperator = /^unknown query operator (\$\S+)/.exec(message);
  if (queryOperator) return commandError('BadValue', `unknown operator: ${queryOperator[1]}`);
  const topLevel = /^unknown top level operator: (\$\S+)/.exec(message);
  if (topLevel) {
    return commandError(
      'BadValue',
      `unknown top level operator: ${topLevel[1]}. If you are trying to use a field with a leading $, use $getField`,
    );
  }
  const stage = /^unregistered pipeline operator (\$[^.\s]+)/.exec(message);
  if (stage) return commandError('UnrecognizedPipelineStage', `Unrecognized pipeline stage name: '${stage[1]}'`);
  const expression = /^(?:accumulator|expression|operator) '?(\$[^'\s]+)'? is not registered/.exec(message);
  if (expression) return commandError('InvalidPipelineOperator', `Unrecognized expression '${expression[1]}'`);
  return commandError('BadValue', message);
}

/** mongod's interruption codes: they fail a whole write batch instead of becoming a write error. */
const INTERRUPTION_CODES = new Set<number>([
  ErrorCode.Interrupted,
  ErrorCode.MaxTimeMSExpired,
  ErrorCode.ClientDisconnect,
  ErrorCode.CursorKilled,
]);

export function isInterruption(error: unknown): boolean {
  return error instanceof CommandError && INTERRUPTION_CODES.has(error.code);
}
