import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, Matches } from 'class-validator';
import { CONFIG_KEY_PATTERN, CONFIG_KEY_RULE, type ConfigValue } from '../config-keys';

const KEY_DESCRIPTION = `The configuration key (${CONFIG_KEY_RULE}).`;

const VALUE_DESCRIPTION = [
  'The value; its rules depend on the key:',
  '- `_ldap_config`: object with exactly `base`, `host`, `username`, `password` (non-empty strings) and `useSSL` (boolean).',
  '  `host` is `hostname[:port]` or a full `ldap://` / `ldaps://` URL. The password is encrypted at rest (AES-256-GCM) and every',
  '  read shows `********`; writing `********` as the password keeps the stored one. Reading it needs a System Admin.',
  '- `SUPPORTED_CD_PROVIDERS`, `COMPLETE_ENRICHMENT_COLLECTOR_PROVIDERS`: array of distinct lowercase provider identifiers.',
  '- `INSTANCE_CURRENCIES`: non-empty array of distinct ISO 4217 codes; must keep holding `DEFAULT_CURRENCY` when that is set.',
  '- `DEFAULT_CURRENCY`: one ISO 4217 code; must be one of `INSTANCE_CURRENCIES` when that is set.',
  '- `CURRENCY_EXCHANGE_RATES`: object mapping an ISO 4217 code to a positive number: how many units of `DEFAULT_CURRENCY`',
  '  one unit of that currency is worth (with `DEFAULT_CURRENCY` = `EUR`, `{ "USD": 0.92 }` means 1 USD = 0.92 EUR).',
  '- any other key: a string, or an array of strings, at most 64 KiB (UTF-8) in all.',
].join('\n');

/** A string, an array of strings or an object, as OpenAPI sees it. */
const VALUE_SCHEMA = {
  oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }, { type: 'object', additionalProperties: true }],
};

export class PutConfigValueRequest {
  /**
   *
   * @example "SUPPORTED_CD_PROVIDERS"
   */
  @ApiProperty({ description: KEY_DESCRIPTION, pattern: CONFIG_KEY_PATTERN.source })
  @IsString()
  @Matches(CONFIG_KEY_PATTERN, { message: `configurationkey must be ${CONFIG_KEY_RULE}` })
  configurationkey: string;

  @ApiProperty({ description: VALUE_DESCRIPTION, ...VALUE_SCHEMA, example: ['aws', 'azure', 'gcp'] })
  @IsDefined({ message: 'configurationvalue is required' })
  configurationvalue: ConfigValue;
}

export class ConfigValueResponse {
  /**
   * The configuration key
   * @example "SUPPORTED_CD_PROVIDERS"
   */
  configurationkey: string;

  /** The stored value; the `_ldap_config` password always reads `********` */
  @ApiProperty({ ...VALUE_SCHEMA })
  configurationvalue: ConfigValue;
}

export class ConfigKeyParams {
  /**
   *
   * @example "DEFAULT_CURRENCY"
   */
  @ApiProperty({ description: KEY_DESCRIPTION, pattern: CONFIG_KEY_PATTERN.source })
  @Matches(CONFIG_KEY_PATTERN, { message: `key must be ${CONFIG_KEY_RULE}` })
  key: string;
}
