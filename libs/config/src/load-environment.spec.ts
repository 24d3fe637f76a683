import { IsInt, IsString, Min } from 'class-validator';
import { admissionBoundsOf, CommonEnvironment } from './common-environment';
import { EnvironmentError, loadEnvironment } from './load-environment';

class SampleEnvironment {
  @IsInt()
  @Min(1)
  PORT: number = 3000;

  @IsString()
  NAME: string = 'x';
}

describe('loadEnvironment', () => {
  it('applies defaults and converts numbers', () => {
    expect(loadEnvironment(SampleEnvironment, { PORT: '8080' })).toMatchObject({ PORT: 8080, NAME: 'x' });
    expect(loadEnvironment(SampleEnvironment, {}).PORT).toBe(3000);
  });

  it('fails with one line per problem and never echoes the value', () => {
    let caught: unknown;
    try {
      loadEnvironment(SampleEnvironment, { PORT: 'secret-value' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(EnvironmentError);
    expect((caught as EnvironmentError).problems).toEqual(expect.arrayContaining([expect.stringMatching(/^PORT: /)]));
    expect((caught as Error).message).not.toContain('secret-value');
  });

  it('keeps the bound of heavy requests within the bound of every request', () => {
    expect(loadEnvironment(CommonEnvironment, {})).toMatchObject({ HTTP_MAX_IN_FLIGHT: 32, HTTP_MAX_HEAVY_IN_FLIGHT: 4 });
    expect(loadEnvironment(CommonEnvironment, { HTTP_MAX_IN_FLIGHT: '8', HTTP_MAX_HEAVY_IN_FLIGHT: '8' }).HTTP_MAX_HEAVY_IN_FLIGHT).toBe(8);
    expect(() => loadEnvironment(CommonEnvironment, { HTTP_MAX_IN_FLIGHT: '8', HTTP_MAX_HEAVY_IN_FLIGHT: '9' })).toThrow(
      'HTTP_MAX_HEAVY_IN_FLIGHT: must not be greater than HTTP_MAX_IN_FLIGHT',
    );
    expect(() => loadEnvironment(CommonEnvironment, { HTTP_MAX_HEAVY_IN_FLIGHT: '0' })).toThrow(/HTTP_MAX_HEAVY_IN_FLIGHT: /);
  });

  it("gives the gateway the services' bounds of work in flight, read from the two admission variables only", () => {
    expect(admissionBoundsOf({})).toEqual({ maxInFlight: 32, maxHeavyInFlight: 4 });
    expect(admissionBoundsOf({ HTTP_MAX_IN_FLIGHT: '6', HTTP_MAX_HEAVY_IN_FLIGHT: '2', MONGODB_URI: 'not a uri' })).toEqual({
      maxInFlight: 6,
      maxHeavyInFlight: 2,
    });
    expect(() => admissionBoundsOf({ HTTP_MAX_IN_FLIGHT: '8', HTTP_MAX_HEAVY_IN_FLIGHT: '9' })).toThrow(
      /must not be greater than HTTP_MAX_IN_FLIGHT/,
    );
  });

  it("refuses to start in production without the service's own NATS user, naming the variables and never their values", () => {
    let caught: unknown;
    try {
      loadEnvironment(CommonEnvironment, { NODE_ENV: 'production' });
    } catch (error) {
      caught = error;
    }
    expect((caught as EnvironmentError).problems).toEqual([
      expect.stringMatching(/^NATS_USER: is required in production/),
      expect.stringMatching(/^NATS_PASSWORD: is required in production/),
    ]);
    expect(() => loadEnvironment(CommonEnvironment, { NODE_ENV: 'production', NATS_USER: 'costasset', NATS_PASSWORD: 'short' })).toThrow(
      /^(?![\s\S]*short)[\s\S]*NATS_PASSWORD: /,
    );
    expect(
      loadEnvironment(CommonEnvironment, { NODE_ENV: 'production', NATS_USER: 'costasset', NATS_PASSWORD: 'a-long-secret' }),
    ).toMatchObject({ NATS_USER: 'costasset' });
  });

  it('connects without credentials in development and test unless one of the pair is given', () => {
    expect(loadEnvironment(CommonEnvironment, { NODE_ENV: 'test' }).NATS_USER).toBeUndefined();
    expect(() => loadEnvironment(CommonEnvironment, { NODE_ENV: 'development', NATS_USER: 'authz' })).toThrow(/NATS_PASSWORD: /);
  });
});
