import request from 'supertest';
import { CurrencyConverter } from '../../apps/costasset/src/currency/currency-converter';
import { teamMembers } from '../support/members';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

/** The corporate currency comes from the core service over NATS; changes reach costasset without a restart. */
describe('costasset currency', () => {
  let platform: Platform;
  let admin: string;
  /** A reader: a member of a team holding no role. */
  let user: string;
  /** A member of a team of another tenant. */
  let stranger: string;

  const putConfig = (key: string, value: unknown, token = admin) =>
    request(platform.authz.url)
      .put('/core/configuration/v1/configvalues')
      .set('corelite-token', token)
      .send({ configurationkey: key, configurationvalue: value });
  const getCurrency = (path: string, token = user) =>
    request(platform.costasset.url).get(`/api/costasset/v1/currency/${path}`).set('corelite-token', token);

  beforeAll(async () => {
    platform = await startPlatform({ BOOTSTRAP_TENANTS: 'default,other' });
    admin = await platform.token({ sub: 'admin' });
    ({ bob: user } = await teamMembers(platform, { code: 'READERS' }, ['bob']));
    ({ x: stranger } = await teamMembers(platform, { code: 'READERS', tid: 'other' }, ['x']));
  });
  afterAll(() => platform.close());

  it('answers USD alone while the core holds no currency', async () => {
    await getCurrency('defaultCurrency').expect(200, { defaultCurrency: 'USD' });
    await getCurrency('instanceCurrencies').expect(200, { instanceCurrencies: ['USD'] });
  });

  it('reads the currencies set in the core, and follows changes without a restart', async () => {
    await putConfig('INSTANCE_CURRENCIES', ['EUR', 'USD', 'GBP']).expect(200);
    await putConfig('DEFAULT_CURRENCY', 'EUR').expect(200);
    await putConfig('CURRENCY_EXCHANGE_RATES', { USD: 0.9, GBP: 1.15 }).expect(200);
    await eventually(async () => {
      await getCurrency('defaultCurrency').expect(200, { defaultCurrency: 'EUR' });
      await getCurrency('instanceCurrencies').expect(200, { instanceCurrencies: ['EUR', 'USD', 'GBP'] });
    });
    const conversion = await platform.costasset.app.get(CurrencyConverter).conversionFor('default');
    expect(conversion.corporateCurrency).toBe('EUR');
    expect(conversion.rateOf('EUR')).toBe(1);
    expect(conversion.rateOf('USD')).toBe(0.9);
    expect(conversion.rateOf('JPY')).toBeUndefined();

    await putConfig('DEFAULT_CURRENCY', 'USD').expect(200);
    await eventually(async () => {
      await getCurrency('defaultCurrency').expect(200, { defaultCurrency: 'USD' });
    });
  });

  it('keeps tenants apart', async () => {
    await getCurrency('defaultCurrency', stranger).expect(200, { defaultCurrency: 'USD' });
  });

  it('needs a token, and a team', async () => {
    const res = await request(platform.costasset.url).get('/api/costasset/v1/currency/defaultCurrency');
    expect(res.status).toBe(401);
    const loner = await platform.token({ sub: 'loner' });
    expectProblem(await getCurrency('defaultCurrency', loner), 403, 'TEAM_REQUIRED');
    expectProblem(await getCurrency('instanceCurrencies', loner), 403, 'TEAM_REQUIRED');
  });
});
