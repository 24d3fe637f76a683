import { createHash, randomBytes } from 'node:crypto';

export interface SlapdConfigInput {
  schemaDir: string;
  moduleDir: string;
  suffix: string;
  rootDn: string;
  /** Already hashed (see `hashSsha`); the plain password never goes into the file. */
  rootPasswordHash: string;
  databaseDir: string;
  pidFile: string;
  argsFile: string;
}

export const SCHEMAS = ['core', 'cosine', 'nis', 'inetorgperson'] as const;

/** `{SSHA}` hash as slappasswd makes it: base64(sha1(password + salt) + salt). */
export function hashSsha(password: string, salt: Buffer = randomBytes(8)): string {
  const digest = createHash('sha1').update(password).update(salt).digest();
  return `{SSHA}${Buffer.concat([digest, salt]).toString('base64')}`;
}

/** A slapd.conf for the demo directory: one mdb database with the memberof overlay. */
export function renderSlapdConfig(input: SlapdConfigInput): string {
  return [
    '# Written by tools/stack (npm run stack -- up); regenerated on every start.',
    ...SCHEMAS.map((schema) => `include ${input.schemaDir}/${schema}.schema`),
    '',
    `pidfile ${input.pidFile}`,
    `argsfile ${input.argsFile}`,
    '',
    `modulepath ${input.moduleDir}`,
    'moduleload back_mdb',
    'moduleload memberof',
    '',
    'database mdb',
    'maxsize 268435456',
    `suffix "${input.suffix}"`,
    `rootdn "${input.rootDn}"`,
    `rootpw ${input.rootPasswordHash}`,
    `directory ${input.databaseDir}`,
    'index objectClass eq',
    'index uid,memberUid,member eq',
    '',
    'overlay memberof',
    '',
    'access to attrs=userPassword',
    '  by self write',
    '  by anonymous auth',
    '  by * none',
    'access to *',
    '  by * read',
    '',
  ].join('\n');
}
