import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ThresholdCrossingRepository } from './threshold-crossing.repository';

/**
 * Crossings recorded before forecast thresholds carry no `kind`, and their collection holds the
 * unique index without it (which would refuse a forecast crossing of a threshold the actual cost
 * already crossed). At start-up, while that index exists: every crossing without a kind is given
 * `actual` (what it meant), then the old index is dropped. Idempotent, and safe for several
 * instances starting at once; readers treat a missing kind as `actual` all the same.
 */
@Injectable()
export class CrossingKindMigration implements OnModuleInit {
  private readonly logger = new Logger('CrossingKindMigration');

  constructor(private readonly crossings: ThresholdCrossingRepository) {}

  async onModuleInit(): Promise<void> {
    const legacyIndex = await this.crossings.legacyIndex();
    if (!legacyIndex) return;
    const assigned = await this.crossings.assignMissingKind();
    await this.crossings.dropIndex(legacyIndex);
    this.logger.log({ assigned, droppedIndex: legacyIndex }, 'budget threshold crossings without a kind recorded as actual');
  }
}
