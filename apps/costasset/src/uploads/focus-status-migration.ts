import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { UploadsRepository } from './uploads.repository';

/**
 * Once at start-up, before any job runs: FOCUS uploads stored while they shared the GPD statuses
 * (`enriching`, `enriched`, `enriched_with_errors`) get the FOCUS ones. Idempotent: a later start
 * finds nothing to rename.
 */
@Injectable()
export class FocusStatusMigration implements OnModuleInit {
  private readonly logger = new Logger('Uploads');

  constructor(private readonly uploads: UploadsRepository) {}

  async onModuleInit(): Promise<void> {
    try {
      const renamed = await this.uploads.migrateFocusStatuses();
      const total = Object.values(renamed).reduce((sum, count) => sum + (count ?? 0), 0);
      if (total > 0) this.logger.log({ renamed, total }, `FOCUS upload statuses migrated: ${total} upload(s) renamed`);
    } catch (error) {
      // the next start renames them; until then both names read as the same state
      this.logger.warn({ err: (error as Error).message }, 'FOCUS upload statuses not migrated yet');
    }
  }
}
