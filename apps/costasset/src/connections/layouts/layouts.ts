import type { ConnectionLayout } from '../schemas/connection.schema';
import { awsDataExports } from './aws-data-exports';
import { azureExports } from './azure-exports';
import type { ExportLayout } from './export-layout';
import { focusFiles } from './focus-files';

export const LAYOUTS: Record<ConnectionLayout, ExportLayout> = {
  'aws-data-exports': awsDataExports,
  'azure-exports': azureExports,
  'focus-files': focusFiles,
};
