import { REQUIRED_COLUMNS } from '../../imports/read/gpd-columns';
import { FOCUS_COLUMNS } from '../../imports/map/focus-columns';

/**
 * The cost-file columns an extension maps to: the required ones of the GPD reader (docs/gpd-format.md#cost-file-c_account_timestampcsv),
 * then any other FOCUS column (the provider of a GPD file is its metadata's, so the provider
 * columns are left out).
 */
export const REQUIRED_COST_COLUMNS: readonly string[] = REQUIRED_COLUMNS.cost;
const PROVIDER_COLUMNS = ['ProviderName', 'ServiceProviderName'];
export const OPTIONAL_COST_COLUMNS: readonly string[] = FOCUS_COLUMNS.map((column) => column.name).filter(
  (name) => !REQUIRED_COST_COLUMNS.includes(name) && !PROVIDER_COLUMNS.includes(name),
);
export const COST_COLUMNS: readonly string[] = [...REQUIRED_COST_COLUMNS, ...OPTIONAL_COST_COLUMNS];
