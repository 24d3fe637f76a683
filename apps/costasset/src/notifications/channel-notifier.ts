import { Injectable } from '@nestjs/common';
import { DeliveryDispatcher } from './delivery-dispatcher';
import { NotificationSubscriptionRepository } from './notifications.repositories';
import { NotificationMessage, Notifier, NotificationTopic } from './notifier';

/** The `Notifier` of the product: subscriptions choose the channels, each gets a delivery job. */
@Injectable()
export class ChannelNotifier extends Notifier {
  constructor(
    private readonly subscriptions: NotificationSubscriptionRepository,
    private readonly dispatcher: DeliveryDispatcher,
  ) {
    super();
  }

  async notify(tenantId: string, topic: NotificationTopic, message: NotificationMessage, idempotencyKey: string): Promise<number> {
    // test messages go to one channel, from its "send test" route, never through subscriptions
    if (topic.kind === 'test') return 0;
    const matching = await this.subscriptions.matching(tenantId, topic.kind, topic.kind === 'budget' ? topic.budgetId : undefined);
    const channelIds = [...new Set(matching.flatMap((subscription) => subscription.channelIds))];
    let queued = 0;
    for (const channelId of channelIds) {
      if (await this.dispatcher.queue(tenantId, channelId, topic, message, idempotencyKey)) queued += 1;
    }
    return queued;
  }
}
