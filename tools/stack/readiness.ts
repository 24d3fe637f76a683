import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { StackError } from './types';

/** The HTTP status `url` answers with, or undefined when nothing answers within `timeoutMs`. */
export function httpStatus(url: string, timeoutMs = 1000): Promise<number | undefined> {
  return new Promise((resolve) => {
    const request = http.get(url, { timeout: timeoutMs }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(undefined));
  });
}

export function tcpAccepts(port: number, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const finish = (accepted: boolean) => {
      socket.destroy();
      resolve(accepted);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

/** Whether nothing listens on `port` (we can bind it ourselves). */
export function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `port` is free now or becomes free within `graceMs` (checked every 100 ms). */
export async function portFreeWithin(port: number, graceMs: number): Promise<boolean> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    if (await portIsFree(port)) return true;
    if (Date.now() >= deadline) return false;
    await sleep(100);
  }
}

export interface WaitOptions {
  what: string;
  timeoutMs: number;
  /** Give up early when this says the process died. */
  stillAlive?: () => boolean;
  /** Quoted in the error, to show why the server did not come up. */
  logFile?: string;
}

export async function waitUntil(check: () => Promise<boolean>, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let delay = 10;
  for (;;) {
    if (await check()) return;
    if (options.stillAlive && !options.stillAlive()) {
      throw new StackError(`${options.what} exited during start-up${lastLogLine(options.logFile)}`);
    }
    if (Date.now() > deadline) {
      throw new StackError(`${options.what} not ready after ${options.timeoutMs} ms${lastLogLine(options.logFile)}`);
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 200);
  }
}

function lastLogLine(logFile: string | undefined): string {
  if (!logFile) return '';
  try {
    const lines = fs.readFileSync(logFile, 'utf8').trim().split('\n');
    const last = lines[lines.length - 1]?.trim();
    return last ? ` (${logFile}: ${last.slice(0, 200)})` : ` (see ${logFile})`;
  } catch {
    return '';
  }
}
