import { createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, JWK } from 'jose';
import { readOrCreateDevKey } from '@lib/config';

export type SigningAlgorithm = 'ES256' | 'RS256';

export interface SigningKey {
  alg: SigningAlgorithm;
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JWK;
}

export interface SigningKeySource {
  /** PEM (PKCS#8); `\n` escapes are accepted so it fits in one environment variable. */
  privateKeyPem?: string;
  devKeysDir: string;
  allowDevKey: boolean;
}

const DEV_KEY_FILE = 'jwt-signing-key.pem';

function algorithmOf(key: KeyObject): SigningAlgorithm {
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  if (key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= 2048) return 'RS256';
  throw new Error('JWT_PRIVATE_KEY must be an EC P-256 (ES256) or RSA >= 2048 bits (RS256) private key');
}

export async function loadSigningKey(source: SigningKeySource): Promise<SigningKey> {
  let pem = source.privateKeyPem?.replace(/\\n/g, '\n');
  if (!pem) {
    if (!source.allowDevKey) throw new Error('JWT_PRIVATE_KEY is required in production');
    pem = readOrCreateDevKey(
      source.devKeysDir,
      DEV_KEY_FILE,
      () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    );
  }
  const privateKey = createPrivateKey(pem);
  const publicKey = createPublicKey(privateKey);
  const alg = algorithmOf(privateKey);
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { alg, kid, privateKey, publicKey, publicJwk: { ...jwk, kid, alg, use: 'sig' } };
}
