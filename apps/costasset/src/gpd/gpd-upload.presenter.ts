import { UploadRecordDto } from './dto/gpd.dto';
import { GpdUpload } from './schemas/gpd-upload.schema';

export function toUploadRecord(upload: GpdUpload): UploadRecordDto {
  return {
    GPDUploadRefId: upload.refId,
    providerName: upload.providerName,
    fileName: upload.fileName,
    status: upload.status,
    jobId: upload.jobId,
    rowsRead: upload.rowsRead,
    rowsWritten: upload.rowsWritten,
    rowsRejected: upload.rowsRejected,
    errors: upload.errors,
    createdAt: upload.createdAt as Date,
    updatedAt: upload.updatedAt as Date,
  };
}
