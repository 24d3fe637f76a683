import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { MessageBus } from '@lib/messaging';
import { ConfigurationService } from './configuration.service';

/** Serves `core.config.get` for the other services (queue group: one instance answers). */
@Injectable()
export class ConfigurationHandler implements OnModuleInit {
  private readonly logger = new Logger('ConfigurationHandler');

  constructor(
    private readonly bus: MessageBus,
    private readonly configuration: ConfigurationService,
  ) {}

  onModuleInit(): void {
    this.bus
      .serve('core.config.get', (request) => this.configuration.lookup(request.tenantId, request.key), 'authz')
      .catch((error: unknown) => this.logger.error({ err: error }, 'cannot serve configuration values'));
  }
}
