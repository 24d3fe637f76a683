import { UploadRecordDto } from './gpd/dto/gpd.dto';
import { Upload } from './schemas/upload.schema';

export function toUploadRecord(upload: Upload): UploadRecordDto {
  const parts = upload.parts?.map(({ objectKey: _key, ...part }) => part);
  return {
    GPDUploadRefId: upload.refId,
    format: upload.format ?? 'gpd',
    ...(upload.providerName !== undefined ? { providerName: upload.providerName } : {}),
    fileName: upload.fileName,
    ...(upload.declaredBytes !== undefined ? { declaredBytes: upload.declaredBytes } : {}),
    status: upload.status,
    jobId: upload.jobId,
    rowsRead: upload.rowsRead,
    rowsWritten: upload.rowsWritten,
    rowsRejected: upload.rowsRejected,
    errors: upload.errors,
    ...(upload.conformance?.rules ? { conformance: { rules: upload.conformance.rules } } : {}),
    ...(parts ? { parts } : {}),
    ...(upload.providers ? { providers: upload.providers } : {}),
    ...(upload.scopes ? { scopes: upload.scopes } : {}),
    ...(upload.replaced ? { replaced: upload.replaced } : {}),
    ...(upload.supersededBy ? { supersededBy: upload.supersededBy } : {}),
    createdAt: upload.createdAt as Date,
    updatedAt: upload.updatedAt as Date,
  };
}
