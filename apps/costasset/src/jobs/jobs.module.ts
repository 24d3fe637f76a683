import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { MongooseModule } from '@nestjs/mongoose';
import { JobChildren } from './job-children';
import { JobCleanups } from './job-cleanups';
import { JobHandlers } from './job-handlers';
import { JobQueue } from './job-queue';
import { JobReaper } from './job-reaper';
import { JobRunner } from './job-runner';
import { JobsController } from './jobs.controller';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';
import { JOB, JobSchema } from './schemas/job.schema';

@Module({
  imports: [DiscoveryModule, MongooseModule.forFeature([{ name: JOB, schema: JobSchema }])],
  controllers: [JobsController],
  providers: [JobsRepository, JobQueue, JobHandlers, JobCleanups, JobChildren, JobRunner, JobReaper, JobsService],
  exports: [JobsService],
})
export class JobsModule {}
