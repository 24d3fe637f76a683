/**
 * Every type of job the service runs. Start-up fails unless each has exactly one handler
 * (`@JobHandlerFor`). The values are stored in job records and travel on the queue: they keep
 * their first names (GPD imports are still `gpd.enrich`) so that records and queued work written
 * by an older version stay valid.
 */
export const JOB_TYPES = {
  gpdImport: 'gpd.enrich',
  focusImport: 'focus.import',
  focusImportPart: 'focus.import-part',
  extensionFlow: 'extension-flow',
  dataDeletion: 'data-deletion',
  accountMigration: 'account-migration',
  anomalyDetection: 'anomalies.detect',
  allocationRebuild: 'allocation.rebuild',
  connectionSync: 'connections.sync',
} as const;

export type JobType = (typeof JOB_TYPES)[keyof typeof JOB_TYPES];
