import { IsInt, IsString, Min } from 'class-validator';
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
});
