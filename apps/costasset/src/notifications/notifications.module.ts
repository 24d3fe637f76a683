import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { SecretSealer, secretSealerFrom } from '@lib/config';
import { CostassetEnvironment } from '../costasset.environment';
import { ChannelNotifier } from './channel-notifier';
import { DeliveryDispatcher } from './delivery-dispatcher';
import { DeliveryQueue } from './delivery-queue';
import { DeliveryWorker } from './delivery-worker';
import { NotificationChannelsController } from './notification-channels.controller';
import { NotificationChannelsService } from './notification-channels.service';
import { NotificationSubscriptionsController } from './notification-subscriptions.controller';
import { NotificationSubscriptionsService } from './notification-subscriptions.service';
import {
  NotificationChannelRepository,
  NotificationDeliveryRepository,
  NotificationSubscriptionRepository,
} from './notifications.repositories';
import { Notifier } from './notifier';
import { NOTIFICATION_CHANNEL, NotificationChannelSchema } from './schemas/notification-channel.schema';
import { NOTIFICATION_DELIVERY, NotificationDeliverySchema } from './schemas/notification-delivery.schema';
import { NOTIFICATION_SUBSCRIPTION, NotificationSubscriptionSchema } from './schemas/notification-subscription.schema';

/**
 * Notification channels, subscriptions and deliveries (docs/notifications.md). Features import this
 * module and inject `Notifier`; they never see a channel.
 */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: NOTIFICATION_CHANNEL, schema: NotificationChannelSchema },
      { name: NOTIFICATION_SUBSCRIPTION, schema: NotificationSubscriptionSchema },
      { name: NOTIFICATION_DELIVERY, schema: NotificationDeliverySchema },
    ]),
  ],
  controllers: [NotificationChannelsController, NotificationSubscriptionsController],
  providers: [
    NotificationChannelRepository,
    NotificationSubscriptionRepository,
    NotificationDeliveryRepository,
    NotificationChannelsService,
    NotificationSubscriptionsService,
    DeliveryQueue,
    DeliveryDispatcher,
    DeliveryWorker,
    { provide: Notifier, useClass: ChannelNotifier },
    {
      provide: SecretSealer,
      inject: [CostassetEnvironment],
      useFactory: (env: CostassetEnvironment) => secretSealerFrom(env, 'NOTIFICATIONS_ENCRYPTION_KEY', 'notifications-encryption.key'),
    },
  ],
  exports: [Notifier],
})
export class NotificationsModule {}
