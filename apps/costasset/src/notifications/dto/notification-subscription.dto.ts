import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn, IsMongoId, IsOptional, ValidateIf } from 'class-validator';
import { IsSafeText, PageOf } from '@lib/http';
import { SUBSCRIPTION_TOPICS, SubscriptionTopic } from '../schemas/notification-subscription.schema';

export const MAX_SUBSCRIPTION_CHANNELS = 20;
const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class CreateNotificationSubscriptionRequest {
  /** @example "Budget alerts to FinOps" */
  @Transform(trim)
  @IsSafeText(128)
  name: string;

  /** Channels of the tenant (1-20) */
  @ApiProperty({ minItems: 1, maxItems: MAX_SUBSCRIPTION_CHANNELS })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_SUBSCRIPTION_CHANNELS)
  @ArrayUnique()
  @IsMongoId({ each: true })
  channelIds: string[];

  /** `budget`: budget alerts; `anomalies`: cost anomalies */
  @ApiProperty({ enum: SUBSCRIPTION_TOPICS })
  @IsIn(SUBSCRIPTION_TOPICS)
  topic: SubscriptionTopic;

  /** topic `budget`: one budget's alerts; absent: every budget's */
  @ValidateIf((body: CreateNotificationSubscriptionRequest) => body.budgetId !== undefined)
  @IsSafeText(128)
  budgetId?: string;
}

/** The fields given change; `budgetId: null` widens a budget subscription to every budget. */
export class UpdateNotificationSubscriptionRequest {
  @IsOptional()
  @Transform(trim)
  @IsSafeText(128)
  name?: string;

  @ApiPropertyOptional({ minItems: 1, maxItems: MAX_SUBSCRIPTION_CHANNELS })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_SUBSCRIPTION_CHANNELS)
  @ArrayUnique()
  @IsMongoId({ each: true })
  channelIds?: string[];

  @ApiPropertyOptional({ enum: SUBSCRIPTION_TOPICS })
  @IsOptional()
  @IsIn(SUBSCRIPTION_TOPICS)
  topic?: SubscriptionTopic;

  @ApiPropertyOptional({ type: String, nullable: true })
  @ValidateIf((body: UpdateNotificationSubscriptionRequest) => body.budgetId !== undefined && body.budgetId !== null)
  @IsSafeText(128)
  budgetId?: string | null;
}

export class NotificationSubscriptionResponse {
  id: string;

  name: string;

  /** The channels (a deleted channel is taken out of every subscription) */
  channelIds: string[];

  @ApiProperty({ enum: SUBSCRIPTION_TOPICS })
  topic: SubscriptionTopic;

  /** topic `budget`: the budget; null: every budget (and for `anomalies`) */
  @ApiProperty({ type: String, nullable: true })
  budgetId: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class NotificationSubscriptionPage extends PageOf(NotificationSubscriptionResponse) {}
