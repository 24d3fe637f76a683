import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { JobHandler, JobHandlerFor } from './job-handler';
import { JOB_TYPES, JobType } from './job-types';
import type { ProgressUnit } from './schemas/job.schema';

/** The handler of each job type, found among the providers by `@JobHandlerFor` once the modules are built. */
@Injectable()
export class JobHandlers implements OnModuleInit {
  private readonly handlers = new Map<string, JobHandler<never>>();

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    const duplicates: string[] = [];
    for (const wrapper of this.discovery.getProviders({ metadataKey: JobHandlerFor.KEY })) {
      const type = this.discovery.getMetadataByDecorator(JobHandlerFor, wrapper);
      if (!type || !wrapper.instance) continue;
      if (this.handlers.has(type)) duplicates.push(type);
      this.handlers.set(type, wrapper.instance as JobHandler<never>);
    }
    const missing = Object.values(JOB_TYPES).filter((type) => !this.handlers.has(type));
    if (missing.length || duplicates.length)
      throw new Error(
        `job handlers: ${[...missing.map((type) => `none for ${type}`), ...duplicates.map((type) => `two for ${type}`)].join(', ')}`,
      );
  }

  get(type: string): JobHandler<never> | undefined {
    return this.handlers.get(type);
  }

  progressUnit(type: JobType): ProgressUnit | undefined {
    return this.handlers.get(type)?.progressUnit;
  }
}
