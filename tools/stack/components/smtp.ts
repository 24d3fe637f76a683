import * as path from 'node:path';
import { spawnDetached, writePid } from '../process-control';
import { tcpAccepts } from '../readiness';
import { StackSettings } from '../settings';
import { LocalComponent, logFile, pidFile } from './local-component';

export const SMTP_MAILBOX_SERVER = path.join('tools', 'stack', 'smtp', 'mailbox-server.ts');

/** Where the local SMTP server stores each message it receives, one `.eml` file each. */
export const mailboxDir = (settings: Pick<StackSettings, 'dataDir'>) => path.join(settings.dataDir, 'mail');

/**
 * An SMTP server built on the `smtp-server` package (tools/stack/smtp/mailbox-server.ts), run with
 * tsx's loader: it speaks the real protocol to nodemailer and keeps every message as an `.eml`
 * file in `<dataDir>/mail`, which tests read. Debian's exim4 or postfix would need root
 * configuration and the system's mail spool.
 */
export const smtpComponent: LocalComponent = {
  name: 'smtp',
  programs: [],
  ports: (settings) => [settings.ports.smtp],
  commandMarker: 'mailbox-server',
  startTimeoutMs: 15_000,

  isHealthy: (settings) => tcpAccepts(settings.ports.smtp),

  async spawn({ settings }) {
    const args = ['--import', 'tsx', SMTP_MAILBOX_SERVER, '--port', String(settings.ports.smtp), '--mailbox', mailboxDir(settings)];
    const pid = spawnDetached(process.execPath, args, logFile(settings, 'smtp'), settings.repoRoot);
    writePid(pidFile(settings, 'smtp'), pid);
  },
};
