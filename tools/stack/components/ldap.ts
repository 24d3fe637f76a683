import * as fs from 'node:fs';
import * as path from 'node:path';
import { readPid, runCommand } from '../process-control';
import { tcpAccepts, waitUntil } from '../readiness';
import { StackSettings } from '../settings';
import { hashSsha, renderSlapdConfig } from '../slapd-config';
import { requireProgram } from '../system-packages';
import { StackError } from '../types';
import { LocalComponent, logFile, pidFile } from './local-component';

export const SEED_LDIF = path.join(__dirname, '..', 'seed-directory.ldif');

const ldapDir = (settings: StackSettings) => path.join(settings.dataDir, 'ldap');
const configFile = (settings: StackSettings) => path.join(ldapDir(settings), 'slapd.conf');
/** The admin password for ldap-utils' `-y`, so it never shows on a command line. */
const passwordFile = (settings: StackSettings) => path.join(ldapDir(settings), 'admin.password');

/** Debian's slapd with an mdb database in `<dataDir>/ldap/db`, seeded from seed-directory.ldif. */
export const ldapComponent: LocalComponent = {
  name: 'ldap',
  programs: [
    { program: 'slapd', aptPackage: 'slapd' },
    { program: 'ldapsearch', aptPackage: 'ldap-utils' },
    { program: 'ldapadd', aptPackage: 'ldap-utils' },
  ],
  ports: (settings) => [settings.ports.ldap],
  commandMarker: 'slapd',
  startTimeoutMs: 10_000,

  isHealthy: (settings) => tcpAccepts(settings.ports.ldap),

  async spawn({ settings }) {
    const databaseDir = path.join(ldapDir(settings), 'db');
    fs.mkdirSync(databaseDir, { recursive: true });
    const config = renderSlapdConfig({
      schemaDir: '/etc/ldap/schema',
      moduleDir: '/usr/lib/ldap',
      suffix: settings.ldap.baseDn,
      rootDn: settings.ldap.adminDn,
      rootPasswordHash: hashSsha(settings.ldap.adminPassword),
      databaseDir,
      pidFile: pidFile(settings, 'ldap'),
      argsFile: path.join(ldapDir(settings), 'slapd.args'),
    });
    fs.writeFileSync(configFile(settings), config, { mode: 0o600 });
    fs.writeFileSync(passwordFile(settings), settings.ldap.adminPassword, { mode: 0o600 });

    // slapd detaches by itself once it has read its configuration; it writes its own pid file.
    const log = logFile(settings, 'ldap');
    const args = ['-f', configFile(settings), '-h', `${settings.localUrls.ldap}/`];
    const result = await runCommand(requireProgram('slapd'), args, { logFile: log, cwd: settings.dataDir });
    if (result.code !== 0) throw new StackError(`slapd exited with code ${result.code} (see ${log})`);
    await waitUntil(async () => readPid(pidFile(settings, 'ldap')) !== undefined, {
      what: 'slapd pid file',
      timeoutMs: 5000,
      logFile: log,
    });
  },

  async prepare({ settings, log }) {
    const bind = ['-x', '-H', settings.localUrls.ldap, '-D', settings.ldap.adminDn, '-y', passwordFile(settings)];
    const base = await runCommand(requireProgram('ldapsearch'), [...bind, '-b', settings.ldap.baseDn, '-s', 'base', '1.1']);
    if (base.code === 0) return;
    const NO_SUCH_OBJECT = 32;
    if (base.code !== NO_SUCH_OBJECT) throw new StackError(`ldapsearch on ${settings.localUrls.ldap} failed: ${firstLine(base.output)}`);
    const seeded = await runCommand(requireProgram('ldapadd'), [...bind, '-f', SEED_LDIF]);
    if (seeded.code !== 0) throw new StackError(`seeding LDAP from ${SEED_LDIF} failed: ${firstLine(seeded.output)}`);
    log(`stack: ldap seeded from ${path.relative(settings.repoRoot, SEED_LDIF)}`);
  },
};

function firstLine(output: string): string {
  return output.trim().split('\n')[0] ?? '';
}
