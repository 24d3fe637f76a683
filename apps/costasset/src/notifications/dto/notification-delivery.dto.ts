import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageOf } from '@lib/http';
import { DELIVERY_STATUSES, DeliveryStatus } from '../schemas/notification-delivery.schema';

export class NotificationDeliveryResponse {
  /** Also the `id` of a JSON webhook body and the `corelite-delivery` header: the same on every attempt */
  id: string;

  channelId: string;

  /** `queued` → `sending` → `sent`; `failed` after a permanent error; `dead_lettered` when every attempt failed */
  @ApiProperty({ enum: DELIVERY_STATUSES })
  status: DeliveryStatus;

  /** Attempts made so far */
  attempts: number;

  /** Why the last attempt failed */
  lastError?: string;

  @ApiProperty({ enum: ['budget', 'anomalies', 'test'] })
  topic: 'budget' | 'anomalies' | 'test';

  /** topic `budget` */
  budgetId?: string;

  title: string;

  /** Names the event: one delivery per channel and key */
  idempotencyKey: string;

  /** When it was queued */
  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;

  @ApiPropertyOptional({ format: 'date-time' })
  lastAttemptAt?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  sentAt?: string;

  /** When it ended failed or dead-lettered */
  @ApiPropertyOptional({ format: 'date-time' })
  failedAt?: string;
}

export class NotificationDeliveryPage extends PageOf(NotificationDeliveryResponse) {}
