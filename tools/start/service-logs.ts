import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** pino's numeric levels. */
const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const WARN = 40;
/** Fields every line carries; the terminal leaves them out. */
const ROUTINE_FIELDS = new Set([
  'level',
  'time',
  'pid',
  'hostname',
  'service',
  'instance',
  'msg',
  'context',
  'req',
  'res',
  'responseTime',
  'reqId',
]);

interface LogLine {
  level?: number;
  msg?: string;
  context?: string;
  err?: { message?: string } | string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  [field: string]: unknown;
}

/** Whether a service's output line goes to the terminal: warnings, errors and anything not JSON (a crash). */
export function showsInTerminal(line: string, verbose: boolean): boolean {
  if (verbose) return true;
  const parsed = parse(line);
  return parsed === undefined || (parsed.level ?? 0) >= WARN;
}

/** One short line for the terminal, e.g. `costasset WARN  [Jobs] job attempt failed (jobId=…, err=…)`. */
export function formatForTerminal(service: string, line: string): string {
  const parsed = parse(line);
  if (parsed === undefined) return `${service.padEnd(9)} ${line}`;
  const level = (LEVEL_NAMES[parsed.level ?? 30] ?? String(parsed.level)).padEnd(5);
  const context = parsed.context ? `[${parsed.context}] ` : '';
  const request = parsed.req
    ? ` ${parsed.req.method} ${parsed.req.url} → ${parsed.res?.statusCode ?? '?'} in ${parsed.responseTime ?? '?'} ms`
    : '';
  const fields = Object.entries(parsed)
    .filter(([key, value]) => !ROUTINE_FIELDS.has(key) && value !== undefined)
    .map(
      ([key, value]) =>
        `${key}=` +
        (typeof value === 'object' && value !== null && 'message' in value
          ? String((value as { message: unknown }).message)
          : typeof value === 'object'
            ? JSON.stringify(value)
            : String(value)),
    );
  return `${service.padEnd(9)} ${level} ${context}${parsed.msg ?? ''}${request}${fields.length ? ` (${fields.join(', ')})` : ''}`;
}

function parse(line: string): LogLine | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as LogLine;
  } catch {
    return undefined;
  }
}

/** Keeps the previous run's file as `<name>.1.log` and starts a new one. */
export function freshLogFile(dir: string, name: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.log`);
  if (fs.existsSync(file)) fs.renameSync(file, path.join(dir, `${name}.1.log`));
  return file;
}

/**
 * Writes every line of a service's stdout and stderr to its log file, and the lines the terminal
 * should see (see `showsInTerminal`) to `terminal`.
 */
export function routeServiceOutput(
  service: string,
  streams: (Readable | null)[],
  logFile: string,
  options: { verbose: boolean; terminal: (line: string) => void },
): void {
  const file = fs.createWriteStream(logFile, { flags: 'a' });
  for (const stream of streams) {
    if (!stream) continue;
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      file.write(`${line}\n`);
      if (showsInTerminal(line, options.verbose)) options.terminal(formatForTerminal(service, line));
    });
  }
}

/** The last lines of a log file, to show why a service stopped. */
export function tailOf(file: string, lines = 5): string[] {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines);
  } catch {
    return [];
  }
}
