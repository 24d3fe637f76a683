import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AuthTypeConfigurationRepository } from './auth-type-configuration.repository';
import { AuthTypeResolver } from './auth-type.resolver';
import { IdpMappingRepository } from './idp-mapping.repository';
import { AuthTypeConfiguration, AuthTypeConfigurationSchema } from './schemas/auth-type-configuration.schema';
import { IdpMapping, IdpMappingSchema } from './schemas/idp-mapping.schema';

@Module({
  imports: [
    MongooseModule.forFeature([
      { name: AuthTypeConfiguration.name, schema: AuthTypeConfigurationSchema },
      { name: IdpMapping.name, schema: IdpMappingSchema },
    ]),
  ],
  providers: [AuthTypeConfigurationRepository, IdpMappingRepository, AuthTypeResolver],
  exports: [AuthTypeConfigurationRepository, IdpMappingRepository, AuthTypeResolver],
})
export class AuthTypeModule {}
