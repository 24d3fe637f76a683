import { Provider } from '@nestjs/common';
import { AuthzEnvironment } from '../../authz.environment';
import { loadConfigEncryptionKey } from './config-encryption-key';
import { SecretCipher } from './secret-cipher';

export const secretCipherProvider: Provider = {
  provide: SecretCipher,
  inject: [AuthzEnvironment],
  useFactory: (env: AuthzEnvironment) =>
    new SecretCipher(
      loadConfigEncryptionKey({
        base64Key: env.CONFIG_ENCRYPTION_KEY,
        devKeysDir: env.DEV_KEYS_DIR,
        allowDevKey: env.NODE_ENV !== 'production',
      }),
    ),
};
