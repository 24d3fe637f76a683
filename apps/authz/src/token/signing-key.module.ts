import { Global, Module } from '@nestjs/common';
import { SIGNING_KEY, signingKeyProvider, tokenIssuerProvider } from './signing-key.provider';

@Global()
@Module({ providers: [signingKeyProvider, tokenIssuerProvider], exports: [SIGNING_KEY, tokenIssuerProvider] })
export class SigningKeyModule {}
