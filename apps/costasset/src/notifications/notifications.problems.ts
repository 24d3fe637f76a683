import { ProblemException } from '@lib/core';

export const NotificationProblems = {
  channelNotFound: () => new ProblemException(404, 'NOTIFICATION_CHANNEL_NOT_FOUND', 'No notification channel has this id'),
  subscriptionNotFound: () => new ProblemException(404, 'NOTIFICATION_SUBSCRIPTION_NOT_FOUND', 'No notification subscription has this id'),
  unknownChannels: (ids: string[]) =>
    new ProblemException(400, 'NOTIFICATION_CHANNEL_UNKNOWN', `No notification channel of the tenant has the id ${ids.join(', ')}`, [
      { field: 'channelIds', messages: [`unknown channel ${ids.join(', ')}`] },
    ]),
  invalid: (field: string, message: string) =>
    new ProblemException(400, 'VALIDATION_FAILED', 'The request is invalid', [{ field, messages: [message] }]),
  invalidUrl: (reason: string) =>
    new ProblemException(400, 'VALIDATION_FAILED', `url ${reason}`, [{ field: 'url', messages: [`url ${reason}`] }]),
  hostNotAllowed: (host: string) =>
    new ProblemException(
      400,
      'NOTIFICATION_HOST_NOT_ALLOWED',
      `${host} is or resolves to a private, loopback or link-local address; NOTIFICATIONS_ALLOW_PRIVATE_HOSTS=true allows it`,
    ),
  smtpNotConfigured: () =>
    new ProblemException(400, 'SMTP_NOT_CONFIGURED', 'Email channels need an SMTP server: this deployment has no SMTP_URL'),
};
