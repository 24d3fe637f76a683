import { STATUS_CODES, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ProblemException } from '@lib/core';

const problemFor = (code: string | undefined): ProblemException =>
  code === 'HPE_HEADER_OVERFLOW'
    ? new ProblemException(431, 'REQUEST_HEADERS_TOO_LARGE', 'The request line and headers are too large')
    : new ProblemException(400, 'MALFORMED_REQUEST', 'The request is not valid HTTP');

/**
 * Requests Node's HTTP parser refuses before Express sees them (headers over the 16 KiB limit,
 * broken request lines) are answered with a problem too, instead of Node's bare status line.
 */
export function answerClientErrorsWithProblems(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const problem = problemFor(error.code).toProblem();
    const body = JSON.stringify(problem);
    socket.end(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nContent-Type: ` +
        `application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
