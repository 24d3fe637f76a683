import { Injectable, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { JobHandler, JobHandlerFor } from './job-handler';
import { JobHandlers } from './job-handlers';
import { JOB_TYPES, JobType } from './job-types';

const handlerFor = (type: JobType) => {
  @Injectable()
  @JobHandlerFor(type)
  class Handler implements JobHandler {
    readonly progressUnit = 'rows' as const;
    run = async () => ({});
  }
  Object.defineProperty(Handler, 'name', { value: `Handler_${type}` });
  return Handler;
};

async function start(types: JobType[]) {
  @Module({ imports: [DiscoveryModule], providers: [JobHandlers, ...types.map(handlerFor)] })
  class Holder {}
  const app = await Test.createTestingModule({ imports: [Holder] }).compile();
  await app.init();
  return app;
}

describe('JobHandlers', () => {
  const every = Object.values(JOB_TYPES);

  it('finds the handler declared for each job type at start-up', async () => {
    const app = await start(every);
    const handlers = app.get(JobHandlers);
    for (const type of every) expect(handlers.progressUnit(type)).toBe('rows');
    await app.close();
  });

  it('fails start-up when a job type has no handler', async () => {
    await expect(start(every.filter((type) => type !== JOB_TYPES.focusImport))).rejects.toThrow('job handlers: none for focus.import');
  });

  it('fails start-up when a job type has two handlers', async () => {
    await expect(start([...every, JOB_TYPES.gpdImport])).rejects.toThrow('job handlers: two for gpd.enrich');
  });
});
