import { describe, expect, it } from '@jest/globals';
import type { Budget, NotificationChannel } from '../api/types';
import {
  blankChannel,
  channelFormOf,
  channelNames,
  channelTarget,
  createRequest,
  parseRecipients,
  stillMoving,
  subscriptionTopic,
  updateRequest,
} from './alerts-logic';

const channel = (fields: Partial<NotificationChannel>) =>
  ({ id: 'c1', name: 'Hook', type: 'webhook', createdAt: '', updatedAt: '', ...fields }) as NotificationChannel;

describe('channel forms', () => {
  it('sends an email channel its recipients only, a webhook its URL, format and a secret when given', () => {
    expect(createRequest({ ...blankChannel('email'), name: ' FinOps ', recipients: 'a@x.io, b@x.io;a@x.io\nc@x.io' })).toEqual({
      type: 'email',
      name: 'FinOps',
      recipients: ['a@x.io', 'b@x.io', 'c@x.io'],
    });
    expect(createRequest({ ...blankChannel(), name: 'Hook', url: ' https://h.io/x ', format: 'slack' })).toEqual({
      type: 'webhook',
      name: 'Hook',
      url: 'https://h.io/x',
      format: 'slack',
    });
    expect(createRequest({ ...blankChannel(), name: 'Hook', url: 'https://h.io', secret: 's'.repeat(30) })).toMatchObject({
      secret: 's'.repeat(30),
    });
    expect(parseRecipients('  ')).toEqual([]);
  });

  it('keeps a webhook’s sealed URL and secret unless new ones are typed', () => {
    const form = channelFormOf(channel({ format: 'teams', urlOrigin: 'https://h.io', secretSet: true }));
    expect(form).toMatchObject({ type: 'webhook', url: '', secret: '', format: 'teams' });
    expect(updateRequest(form)).toEqual({ name: 'Hook', format: 'teams' });
    expect(updateRequest({ ...form, url: 'https://g.io/y' })).toEqual({ name: 'Hook', format: 'teams', url: 'https://g.io/y' });
    expect(updateRequest(channelFormOf(channel({ type: 'email', recipients: ['a@x.io'] })))).toEqual({
      name: 'Hook',
      recipients: ['a@x.io'],
    });
  });
});

describe('channel and subscription texts', () => {
  it('names where a channel sends', () => {
    expect(channelTarget(channel({ urlOrigin: 'https://h.io', format: 'json' }))).toBe('https://h.io · json');
    expect(channelTarget(channel({ type: 'email', recipients: ['a@x.io', 'b@x.io'] }))).toBe('a@x.io, b@x.io');
  });

  it('says what a subscription hears and through which channels', () => {
    const budgets = [{ id: 'b1', name: 'AWS prod' }] as Budget[];
    expect(subscriptionTopic({ topic: 'anomalies', budgetId: null })).toBe('Cost anomalies');
    expect(subscriptionTopic({ topic: 'budget', budgetId: null })).toBe('Alerts of every budget');
    expect(subscriptionTopic({ topic: 'budget', budgetId: 'b1' }, budgets)).toBe('Alerts of budget AWS prod');
    expect(subscriptionTopic({ topic: 'budget', budgetId: 'b2' }, budgets)).toBe('Alerts of budget b2 (not found)');
    expect(channelNames(['c1', 'c9'], [channel({})])).toBe('Hook, c9 (deleted)');
    expect(channelNames([], [])).toBe('no channel (sends nothing)');
  });

  it('follows a delivery log while something is queued or sending', () => {
    expect(stillMoving([{ status: 'sent' }, { status: 'queued' }])).toBe(true);
    expect(stillMoving([{ status: 'sent' }, { status: 'dead_lettered' }])).toBe(false);
  });
});
