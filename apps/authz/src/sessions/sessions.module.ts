import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { TokenFamily, TokenFamilySchema } from './schemas/token-family.schema';
import { TokenFamilyRepository } from './token-family.repository';

/** Refresh-token families (sessions): read by principal resolution, written by the token routes and user disabling. */
@Module({
  imports: [MongooseModule.forFeature([{ name: TokenFamily.name, schema: TokenFamilySchema }])],
  providers: [TokenFamilyRepository],
  exports: [TokenFamilyRepository],
})
export class SessionsModule {}
