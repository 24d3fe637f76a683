/**
 * The local stack's SMTP server: `smtp-server` (nodemailer's project, the real protocol) on
 * 127.0.0.1, no TLS, any or no login accepted, each message stored whole as an `.eml` file in the
 * mailbox directory (written under a temporary name, then renamed: a reader never sees half a
 * message). A recipient whose local part is `smtp-451…` or `smtp-550…` is refused with that reply,
 * so tests can see how a temporary and a permanent refusal are handled.
 *
 * `node --import tsx tools/stack/smtp/mailbox-server.ts --port 2525 --mailbox .stack/dev/mail`
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SMTPServer } from 'smtp-server';

function option(name: string): string {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? process.argv[index + 1] : undefined;
  if (!value) throw new Error(`--${name} is required`);
  return value;
}

const port = Number(option('port'));
const mailbox = path.resolve(option('mailbox'));
fs.mkdirSync(mailbox, { recursive: true });

const refusal = (address: string) => /^smtp-(451|550)/i.exec(address)?.[1];

const server = new SMTPServer({
  name: 'corelite-stack-smtp',
  banner: 'corelite local SMTP (mailbox)',
  secure: false,
  disabledCommands: ['STARTTLS'],
  authOptional: true,
  allowInsecureAuth: true,
  size: 10 * 1024 * 1024,
  logger: false,
  onAuth(_auth, _session, callback) {
    callback(null, { user: 'local' });
  },
  onRcptTo(address, _session, callback) {
    const code = refusal(address.address);
    if (!code) return callback();
    const error = Object.assign(new Error(code === '451' ? 'try again later' : 'no such mailbox'), { responseCode: Number(code) });
    callback(error);
  },
  onData(stream, _session, callback) {
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`;
    const partial = path.join(mailbox, `.${name}.part`);
    const out = fs.createWriteStream(partial);
    stream.pipe(out);
    stream.on('error', (error) => callback(error));
    out.on('error', (error) => callback(error));
    out.on('finish', () => {
      if (stream.sizeExceeded) {
        fs.rmSync(partial, { force: true });
        return callback(Object.assign(new Error('message too large'), { responseCode: 552 }));
      }
      fs.renameSync(partial, path.join(mailbox, name));
      process.stdout.write(`stored ${name}\n`);
      callback();
    });
  },
});

server.on('error', (error) => process.stderr.write(`smtp: ${error.message}\n`));
server.listen(port, '127.0.0.1', () => process.stdout.write(`smtp: listening on 127.0.0.1:${port}, mailbox ${mailbox}\n`));
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => server.close(() => process.exit(0)));
