import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsNumber, IsOptional, IsUrl, Matches, Max, Min } from 'class-validator';
import { toBoolean } from '@lib/config';

const OTLP_URL = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };
/** An empty variable is an unset one (docker-compose's `${VAR-default}` passes an empty value on). */
const EmptyAsUnset = () => Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value));
export const TRACES_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/**
 * The standard `OTEL_*` variables the product reads (the SDK reads them too; they are validated
 * here once, before it does). Tracing is on only when an OTLP endpoint is set.
 */
export class TracingEnvironment {
  /** OTLP/HTTP base URL: spans go to `<url>/v1/traces`. */
  @EmptyAsUnset()
  @IsOptional()
  @IsUrl(OTLP_URL)
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  /** OTLP/HTTP URL of the traces signal itself (wins over the base URL). */
  @EmptyAsUnset()
  @IsOptional()
  @IsUrl(OTLP_URL)
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;

  @IsOptional()
  @IsIn(['otlp', 'none'])
  OTEL_TRACES_EXPORTER?: 'otlp' | 'none';

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  OTEL_SDK_DISABLED?: boolean;

  @IsOptional()
  @Matches(/^[A-Za-z0-9._-]{1,128}$/, { message: 'must be 1-128 letters, digits or ._-' })
  OTEL_SERVICE_NAME?: string;

  @IsOptional()
  @IsIn(TRACES_SAMPLERS)
  OTEL_TRACES_SAMPLER?: (typeof TRACES_SAMPLERS)[number];

  /** The ratio of the `*traceidratio` samplers, 0 to 1. */
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  OTEL_TRACES_SAMPLER_ARG?: number;
}

/** Whether the environment asks for traces: an endpoint, and neither the SDK nor the exporter switched off. */
export function tracingRequested(env: TracingEnvironment): boolean {
  if (env.OTEL_SDK_DISABLED === true || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}
