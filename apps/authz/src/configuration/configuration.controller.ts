import { Body, Controller, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiBadRequestResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AnyMember, CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { ConfigurationService } from './configuration.service';
import { ConfigKeyParams, ConfigValueResponse, PutConfigValueRequest } from './dto/config-value.dto';

@ApiTags('configuration')
@Controller('core/configuration/v1/configvalues')
export class ConfigurationController {
  constructor(private readonly configuration: ConfigurationService) {}

  @Put()
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Create or replace a configuration value (System Admin)',
    description:
      'Upsert by key. Values are validated per key (see `configurationvalue`); ' +
      'every change is audited and announced on `core.config.changed`.',
  })
  @ApiOkResponse({ type: ConfigValueResponse, description: 'The stored entry (the `_ldap_config` password masked)' })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, with `errors[]` naming the offending fields' })
  put(@CurrentPrincipal() principal: Principal, @Body() body: PutConfigValueRequest): Promise<ConfigValueResponse> {
    return this.configuration.put(principal, body.configurationkey, body.configurationvalue);
  }

  @Get()
  @AnyMember()
  @ApiOperation({
    summary: 'All configuration values of the tenant, by key',
    description: '`_ldap_config` is listed for a System Admin only.',
  })
  @ApiOkResponse({ type: [ConfigValueResponse] })
  list(@CurrentPrincipal() principal: Principal): Promise<ConfigValueResponse[]> {
    return this.configuration.list(principal);
  }

  @Get(':key')
  @AnyMember()
  @ApiOperation({ summary: 'One configuration value', description: 'Any user of the tenant; `_ldap_config` needs a System Admin.' })
  @ApiOkResponse({ type: ConfigValueResponse })
  @ApiForbiddenResponse({ description: '`SYSTEM_ADMIN_REQUIRED` when reading `_ldap_config` without being a System Admin' })
  @ApiNotFoundResponse({ description: '`CONFIG_NOT_FOUND`' })
  get(@CurrentPrincipal() principal: Principal, @Param() params: ConfigKeyParams): Promise<ConfigValueResponse> {
    return this.configuration.get(principal, params.key);
  }
}
