import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsOptional,
  IsUrl,
  Matches,
  ValidateIf,
} from 'class-validator';
import { IsSafeText, PageOf } from '@lib/http';
import { CHANNEL_TYPES, ChannelType, WEBHOOK_FORMATS, WebhookFormat } from '../schemas/notification-channel.schema';

export const MAX_RECIPIENTS = 50;
const WEBHOOK_URL = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };
/** A signing secret the caller chooses: 24-256 printable characters without spaces. */
const SECRET_PATTERN = /^[\x21-\x7e]{24,256}$/;
const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class CreateNotificationChannelRequest {
  /**
   * A name for people
   * @example "FinOps team"
   */
  @Transform(trim)
  @IsSafeText(128)
  name: string;

  @ApiProperty({ enum: CHANNEL_TYPES })
  @IsIn(CHANNEL_TYPES)
  type: ChannelType;

  /**
   * email: 1-50 addresses
   * @example ["finops@example.com"]
   */
  @ApiPropertyOptional({ minItems: 1, maxItems: MAX_RECIPIENTS })
  @ValidateIf((body: CreateNotificationChannelRequest) => body.type === 'email' || body.recipients !== undefined)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_RECIPIENTS)
  @ArrayUnique()
  @IsEmail({}, { each: true })
  recipients?: string[];

  /**
   * webhook: the http(s) URL to POST to. Private and loopback hosts are refused unless
   * NOTIFICATIONS_ALLOW_PRIVATE_HOSTS=true; sealed at rest, only its origin is shown afterwards
   * @example "https://hooks.example.com/corelite"
   */
  @ApiPropertyOptional({ writeOnly: true, maxLength: 2048 })
  @ValidateIf((body: CreateNotificationChannelRequest) => body.type === 'webhook' || body.url !== undefined)
  @IsSafeText(2048)
  @IsUrl(WEBHOOK_URL)
  url?: string;

  /** webhook: the body's format (default `json`) */
  @ApiPropertyOptional({ enum: WEBHOOK_FORMATS, default: 'json' })
  @IsOptional()
  @IsIn(WEBHOOK_FORMATS)
  format?: WebhookFormat;

  /**
   * webhook: the HMAC-SHA256 signing secret (24-256 printable characters). When absent the server
   * generates one and shows it once, in this answer (`signingSecret`); never returned afterwards
   */
  @ApiPropertyOptional({ writeOnly: true, minLength: 24, maxLength: 256 })
  @IsOptional()
  @Matches(SECRET_PATTERN, { message: 'secret must be 24-256 printable characters without spaces' })
  secret?: string;
}

/** The fields given change; the type does not. */
export class UpdateNotificationChannelRequest {
  @IsOptional()
  @Transform(trim)
  @IsSafeText(128)
  name?: string;

  /** email: 1-50 addresses, replacing the list */
  @ApiPropertyOptional({ minItems: 1, maxItems: MAX_RECIPIENTS })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_RECIPIENTS)
  @ArrayUnique()
  @IsEmail({}, { each: true })
  recipients?: string[];

  /** webhook: a new URL (checked as on create) */
  @ApiPropertyOptional({ writeOnly: true, maxLength: 2048 })
  @IsOptional()
  @IsSafeText(2048)
  @IsUrl(WEBHOOK_URL)
  url?: string;

  @ApiPropertyOptional({ enum: WEBHOOK_FORMATS })
  @IsOptional()
  @IsIn(WEBHOOK_FORMATS)
  format?: WebhookFormat;

  /** webhook: a new signing secret of the caller's choice */
  @ApiPropertyOptional({ writeOnly: true, minLength: 24, maxLength: 256 })
  @IsOptional()
  @Matches(SECRET_PATTERN, { message: 'secret must be 24-256 printable characters without spaces' })
  secret?: string;

  /** webhook: the server generates a new signing secret and shows it once, in this answer (`signingSecret`) */
  @IsOptional()
  @IsBoolean()
  rotateSecret?: boolean;
}

export class NotificationChannelResponse {
  id: string;

  name: string;

  @ApiProperty({ enum: CHANNEL_TYPES })
  type: ChannelType;

  /** email */
  recipients?: string[];

  /** webhook */
  @ApiPropertyOptional({ enum: WEBHOOK_FORMATS })
  format?: WebhookFormat;

  /** webhook: the URL's scheme, host and port (the whole URL is sealed: Slack's and Teams' URLs are credentials) */
  urlOrigin?: string;

  /** webhook: a signing secret is set (it is never returned) */
  secretSet?: boolean;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

/** The answer of a create or change that generated a signing secret: the only time it is shown. */
export class NotificationChannelWithSecretResponse extends NotificationChannelResponse {
  /** The generated signing secret, shown in this answer only; store it in the receiver now */
  signingSecret?: string;
}

export class NotificationChannelPage extends PageOf(NotificationChannelResponse) {}
