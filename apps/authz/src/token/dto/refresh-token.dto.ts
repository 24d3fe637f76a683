import { ApiProperty } from '@nestjs/swagger';
import { IsJWT, MaxLength } from 'class-validator';

export class RefreshTokenRequest {
  @ApiProperty({ description: 'A refresh JWT (`typ: "refresh"`) signed by this platform' })
  @IsJWT()
  @MaxLength(8192)
  refresh_token: string;
}

export class AccessTokenResponse {
  @ApiProperty({ description: 'A new corelite-token carrying the auth type of the IdP as it is now' })
  access_token: string;

  @ApiProperty({ example: 'Bearer' })
  token_type: 'Bearer';

  @ApiProperty({ description: 'Lifetime in seconds' })
  expires_in: number;
}
