import { nextRunOf, scheduleProblem } from './sync-schedule';
import { connectionSettings } from './connection.presenter';

describe('sync schedules', () => {
  it('runs a cron expression in its time zone (UTC by default) and an interval from now', () => {
    const after = new Date('2026-11-27T12:00:00Z');
    expect(nextRunOf({ cron: '0 6 * * *', timezone: 'UTC' }, after)?.toISOString()).toBe('2026-11-28T06:00:00.000Z');
    expect(nextRunOf({ cron: '0 6 * * *', timezone: 'Europe/Paris' }, after)?.toISOString()).toBe('2026-11-28T05:00:00.000Z');
    expect(nextRunOf({ intervalMinutes: 90, timezone: 'UTC' }, after)?.toISOString()).toBe('2026-11-27T13:30:00.000Z');
  });

  it('says what is wrong with a schedule', () => {
    expect(scheduleProblem({ cron: '0 6 * * *', timezone: 'UTC' })).toBeUndefined();
    expect(scheduleProblem({})).toMatch(/either cron or intervalMinutes/);
    expect(scheduleProblem({ cron: '0 6 * * *', intervalMinutes: 60 })).toMatch(/either/);
    expect(scheduleProblem({ cron: '61 * * * *' })).toMatch(/minute/);
    expect(scheduleProblem({ cron: '* * * *' })).toMatch(/five fields/);
    expect(scheduleProblem({ cron: '0 6 * * *', timezone: 'Mars/Olympus' })).toMatch(/not an IANA time zone/);
  });
});

describe('connection settings', () => {
  const s3 = { endpoint: 'https://s3.example.com', region: 'us-east-1', bucket: 'billing', prefix: 'exports/' };

  it('keeps what the type needs and names each missing or foreign field', () => {
    const kept = connectionSettings('s3', s3, { accessKeyId: 'AK', secretAccessKey: 'SK' }, { intervalMinutes: 60 });
    expect(kept).toEqual({
      source: s3,
      credentials: { accessKeyId: 'AK', secretAccessKey: 'SK' },
      schedule: { intervalMinutes: 60, timezone: 'UTC' },
    });
    const fields = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return (error as { errors?: { field: string }[] }).errors?.map((problem) => problem.field);
      }
      return [];
    };
    expect(fields(() => connectionSettings('s3', { prefix: '' }, { sasToken: 'x' }))).toEqual([
      'credentials.sasToken',
      'source.bucket',
      'source.region',
      'credentials.accessKeyId',
      'credentials.secretAccessKey',
    ]);
    expect(
      fields(() =>
        connectionSettings(
          'azure-blob',
          { accountUrl: 'https://a.blob.core.windows.net', container: 'c' },
          { sasToken: 's', accountKey: 'k' },
        ),
      ),
    ).toEqual(['credentials']);
    expect(
      fields(() =>
        connectionSettings(
          'azure-blob',
          { accountUrl: 'https://a.blob.core.windows.net', container: 'c' },
          { sasToken: 's' },
          { cron: 'nope' },
        ),
      ),
    ).toEqual(['schedule']);
    const keys = { accessKeyId: 'AK', secretAccessKey: 'SK' };
    expect(fields(() => connectionSettings('s3', { ...s3, endpoint: 'https://user:pw@s3.example.com' }, keys))).toEqual([
      'source.endpoint',
    ]);
    const withSas = { accountUrl: 'https://a.blob.core.windows.net?sv=2024&sig=x', container: 'c' };
    expect(fields(() => connectionSettings('azure-blob', withSas, { sasToken: 's' }))).toEqual(['source.accountUrl']);
  });
});
