/**
 * Mints a corelite-token with the local signing key, for development and tests:
 *   npm run -s token -- --sub <user> --tenant <tid> --idp <idp> [--groups a,b] [--refresh] [--ttl 1h]
 * Prints one JWT on stdout and nothing else. Uses JWT_PRIVATE_KEY when set, otherwise the dev key
 * in DEV_KEYS_DIR (default .dev-keys), which authz also uses.
 */
import { parseArgs } from 'node:util';
import { loadSigningKey, parseTtl, TokenIssuer } from '@lib/auth';

const USAGE =
  'usage: npm run -s token -- --sub <user> --tenant <tid> --idp <idp> [--groups a,b] [--refresh] [--ttl 1h] [--auth-type internal|hybrid]';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sub: { type: 'string' },
      tenant: { type: 'string' },
      idp: { type: 'string' },
      groups: { type: 'string', default: '' },
      refresh: { type: 'boolean', default: false },
      ttl: { type: 'string', default: '1h' },
      'auth-type': { type: 'string', default: 'internal' },
    },
    strict: true,
  });
  if (!values.sub || !values.tenant || !values.idp) throw new Error(USAGE);
  const authType = values['auth-type'];
  if (authType !== 'internal' && authType !== 'hybrid') throw new Error('--auth-type must be internal or hybrid');
  const key = await loadSigningKey({
    privateKeyPem: process.env.JWT_PRIVATE_KEY,
    devKeysDir: process.env.DEV_KEYS_DIR ?? '.dev-keys',
    allowDevKey: process.env.NODE_ENV !== 'production',
  });
  const issuer = new TokenIssuer(key, process.env.JWT_ISSUER ?? 'corelite-authz');
  const groups = values.groups
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean);
  const claims = { sub: values.sub, tid: values.tenant, idp: values.idp, groups };
  const ttl = parseTtl(values.ttl);
  const issued = values.refresh ? await issuer.issueRefresh(claims, ttl) : await issuer.issueAccess({ ...claims, authType }, ttl);
  process.stdout.write(`${issued.token}\n`);
}

main().catch((error: Error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
});
