import { Module } from '@nestjs/common';
import { LineItemStoreModule } from '../../line-items/line-item-store.module';
import { RollupsModule } from '../../rollups/rollups.module';
import { UploadRows } from './upload-rows';

/** An upload's rows, for the imports and for the upload routes that clean an upload up. */
@Module({
  imports: [LineItemStoreModule, RollupsModule],
  providers: [UploadRows],
  exports: [UploadRows],
})
export class UploadRowsModule {}
