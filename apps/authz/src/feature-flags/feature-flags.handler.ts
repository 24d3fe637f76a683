import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { MessageBus } from '@lib/messaging';
import { Problems } from '@lib/core';
import { FeatureFlagsService } from './feature-flags.service';

/** Serves `core.flags.list` and `core.flags.set` for costasset's wrapper endpoints (queue group `authz`). */
@Injectable()
export class FeatureFlagsHandler implements OnModuleInit {
  private readonly logger = new Logger('FeatureFlagsHandler');

  constructor(
    private readonly bus: MessageBus,
    private readonly flags: FeatureFlagsService,
  ) {}

  onModuleInit(): void {
    const failed = (error: unknown) => this.logger.error({ err: error }, 'cannot serve feature flags');
    this.bus
      .serve(
        'core.flags.list',
        async (request) => {
          if (typeof request.tenantId !== 'string' || !request.tenantId)
            throw Problems.badRequest('VALIDATION_FAILED', 'tenantId is required');
          return { flags: await this.flags.list(request.tenantId) };
        },
        'authz',
      )
      .catch(failed);
    this.bus.serve('core.flags.set', (request) => this.flags.setFromRequest(request), 'authz').catch(failed);
  }
}
