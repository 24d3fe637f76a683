import request from 'supertest';
import type { Platform } from './platform';

/** Sets configuration values through authz's API, as an admin would (`PUT /core/configuration/v1/configvalues`). */
export function configValues(platform: Platform, token: string): (key: string, value: unknown) => Promise<unknown> {
  return async (key, value) =>
    request(platform.authz.url)
      .put('/core/configuration/v1/configvalues')
      .set('corelite-token', token)
      .send({ configurationkey: key, configurationvalue: value })
      .expect(200);
}
