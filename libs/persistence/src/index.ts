export * from './tenant-scoped.schema';
export * from './tenant-repository';
export * from './mongo-readiness.probe';
export * from './database.module';
export * from './unique-indexes';
export * from './time-limits';
export * from './bson-documents';
export * from './insert-batch';
