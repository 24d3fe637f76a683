import { Module } from '@nestjs/common';
import { LineItemsModule } from '../line-items/line-items.module';
import { FocusExportController } from './focus-export.controller';
import { FocusExportService } from './focus-export.service';

/** FOCUS exports of line items (FOCUS imports are ImportsModule's, FOCUS uploads UploadsModule's). */
@Module({
  imports: [LineItemsModule],
  controllers: [FocusExportController],
  providers: [FocusExportService],
})
export class FocusExportModule {}
