import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { MessageBus } from '@lib/messaging';
import { PrincipalService } from './principal.service';

/** Serves `authz.principal.resolve` for the other services (queue group: one instance answers). */
@Injectable()
export class PrincipalHandler implements OnModuleInit {
  private readonly logger = new Logger('PrincipalHandler');

  constructor(
    private readonly bus: MessageBus,
    private readonly principals: PrincipalService,
  ) {}

  onModuleInit(): void {
    this.bus
      .serve('authz.principal.resolve', (request) => this.principals.resolveAccess(request), 'authz')
      .catch((error: unknown) => this.logger.error({ err: error }, 'cannot serve principal resolution'));
  }
}
