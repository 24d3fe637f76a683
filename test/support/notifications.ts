import { readdirSync, readFileSync } from 'node:fs';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ParsedMail, simpleParser } from 'mailparser';
import { mailboxDir } from '../../tools/stack/components/smtp';
import { stackSettings } from '../../tools/stack';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver: `/fail-twice/...` answers 503 to its first two requests, `/gone` 410; everything else 204. */
export async function startReceiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const seen = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body });
      const count = (seen.get(path) ?? 0) + 1;
      seen.set(path, count);
      if (path.startsWith('/fail-twice') && count <= 2) return res.writeHead(503).end('busy');
      if (path === '/gone') return res.writeHead(410).end();
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/** Every message the local SMTP server stored (the stack's mailbox of the test profile), parsed. */
async function storedMails(): Promise<ParsedMail[]> {
  const dir = mailboxDir(stackSettings({ profile: process.env.STACK_PROFILE || 'test' }));
  const files = readdirSync(dir).filter((name) => name.endsWith('.eml'));
  return Promise.all(files.map((name) => simpleParser(readFileSync(join(dir, name), 'utf8'))));
}

/** The message the local SMTP server stored for a delivery (its `X-Corelite-Delivery` header). */
export async function mailOf(deliveryId: string): Promise<ParsedMail> {
  const mail = (await storedMails()).find((stored) => stored.headers.get('x-corelite-delivery') === deliveryId);
  if (!mail) throw new Error(`no message for delivery ${deliveryId} in the stack's mailbox`);
  return mail;
}

/** Every message the local SMTP server stored whose subject or text holds `marker` (e.g. a budget's name). */
export async function mailsWith(marker: string): Promise<ParsedMail[]> {
  return (await storedMails()).filter((mail) => `${mail.subject ?? ''}\n${mail.text ?? ''}`.includes(marker));
}
