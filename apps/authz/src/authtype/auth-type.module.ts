import { Global, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { IdpAuthTypes } from '../identity/idp-auth-types';
import { AuthTypeConfigurationRepository } from './auth-type-configuration.repository';
import { AuthTypeResolver } from './auth-type.resolver';
import { IdpMappingRepository } from './idp-mapping.repository';
import { AuthTypeConfiguration, AuthTypeConfigurationSchema } from './schemas/auth-type-configuration.schema';
import { IdpMapping, IdpMappingSchema } from './schemas/idp-mapping.schema';

/**
 * The stored auth types and their resolver. Global: identity reads an IdP's auth type through
 * IdpAuthTypes without importing this module (authtype depends on identity, not the reverse).
 */
@Global()
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: AuthTypeConfiguration.name, schema: AuthTypeConfigurationSchema },
      { name: IdpMapping.name, schema: IdpMappingSchema },
    ]),
  ],
  providers: [
    AuthTypeConfigurationRepository,
    IdpMappingRepository,
    AuthTypeResolver,
    { provide: IdpAuthTypes, useExisting: AuthTypeResolver },
  ],
  exports: [AuthTypeConfigurationRepository, IdpMappingRepository, AuthTypeResolver, IdpAuthTypes],
})
export class AuthTypeModule {}
