import { REQUIRED_COLUMNS } from '../../enrichment/gpd-columns';

/** The cost-file columns an extension maps to (contract §5); the required ones come from the GPD reader. */
export const REQUIRED_COST_COLUMNS: readonly string[] = REQUIRED_COLUMNS.cost;
export const OPTIONAL_COST_COLUMNS: readonly string[] = [
  'EffectiveCost',
  'ListCost',
  'ChargeCategory',
  'SubAccountId',
  'SubAccountName',
  'ResourceId',
  'ResourceName',
  'ResourceType',
  'RegionId',
  'PricingQuantity',
  'PricingUnit',
  'Tags',
];
export const COST_COLUMNS: readonly string[] = [...REQUIRED_COST_COLUMNS, ...OPTIONAL_COST_COLUMNS];
