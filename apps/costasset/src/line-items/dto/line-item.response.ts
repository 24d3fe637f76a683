import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageOf } from '@lib/http';

export class TagDto {
  /** A FOCUS tag key `group:key` or `group/key` splits at its first separator; a plain key has the group `default` */
  group: string;
  key: string;
  /** Always a string (`true` for a key without a value, with `type: boolean`) */
  value: string;
  /** The original key, when it was split into group and key */
  name?: string;
  /** The JSON type of the value when not a string */
  @ApiPropertyOptional({ enum: ['boolean', 'number', 'null'] })
  type?: 'boolean' | 'number' | 'null';
}

export class CustomColumnDto {
  /**
   * The `x_` column name as the file wrote it
   * @example "x_CostCenter"
   */
  name: string;
  value: string;
}

const money = (description: string) => ({ type: Number, description: `${description} (as given: never rounded)` });
const focus = (column: string, extra = '') => ({ type: String, description: `FOCUS ${column}${extra}` });

/**
 * A cost line item as the API returns it: every stored field (absent ones are left out). Amounts
 * are in `billingCurrency` except `cost` (corporate currency) and the PricingCurrency* ones.
 */
export class CostLineItemDto {
  id: string;
  /** The GPD or FOCUS upload the row came from */
  uploadRefId: string;
  /** File inside the upload (GPD: path in the zip, or the raw file of an extension flow; FOCUS: part name) */
  sourceFile?: string;
  /** Line in that file (CSV, the header is line 1) or 1-based row (Parquet) */
  sourceRow?: number;
  /** The row `Id` of the export, when it has one */
  sourceId?: string;
  /**
   * FOCUS version of the file the row came from
   * @example "1.2"
   */
  focusVersion?: string;
  /** FOCUS ProviderName (ServiceProviderName from 1.3); the provider of a GPD file */
  providerName: string;
  @ApiPropertyOptional(focus('PublisherName')) publisherName?: string;
  @ApiPropertyOptional(focus('ServiceProviderName', ' (1.3)')) serviceProviderName?: string;
  @ApiPropertyOptional(focus('HostProviderName', ' (1.3)')) hostProviderName?: string;
  @ApiPropertyOptional(focus('InvoiceIssuerName')) invoiceIssuerName?: string;
  /** Opaque: any characters (resource paths, ARNs, spaces, Unicode) */
  billingAccountId: string;
  billingAccountName: string;
  @ApiPropertyOptional(focus('BillingAccountType', ' (1.2)')) billingAccountType?: string;
  /** The sub-account (SubAccountId) */
  assetAccountId?: string;
  /** SubAccountName */
  assetAccountName?: string;
  @ApiPropertyOptional(focus('SubAccountType', ' (1.2)')) subAccountType?: string;
  resourceId?: string;
  resourceName?: string;
  /** ResourceType as uploaded */
  assetType?: string;
  /**
   * Service category: the provider metadata mapping of the asset type (or service name), else FOCUS ServiceCategory, else `Uncategorized`
   */
  category: string;
  @ApiPropertyOptional(focus('ServiceCategory', ' as uploaded')) serviceCategory?: string;
  @ApiPropertyOptional(focus('ServiceSubcategory', ' (1.1)')) serviceSubcategory?: string;
  serviceName?: string;
  /** RegionId as uploaded */
  region?: string;
  @ApiPropertyOptional(focus('RegionName')) regionName?: string;
  @ApiPropertyOptional(focus('AvailabilityZone')) availabilityZone?: string;
  location?: string;
  country?: string;
  state?: string;
  subregion?: string;
  /** The region of the location mapping */
  locationRegion?: string;
  dataCenter?: string;
  /**
   * Month of ChargePeriodStart (UTC)
   * @example "202410"
   */
  period: string;
  /**
   * Month of BillingPeriodStart (UTC); the charge month when the file has none
   * @example "202411"
   */
  billingPeriod: string;
  @ApiPropertyOptional({ format: 'date-time' }) billingPeriodStart?: string;
  @ApiPropertyOptional({ format: 'date-time' }) billingPeriodEnd?: string;
  @ApiProperty(money('BilledCost converted to the corporate currency')) cost: number;
  /** The corporate currency of `cost` */
  currency: string;
  @ApiProperty(money('FOCUS BilledCost')) billedCost: number;
  billingCurrency: string;
  @ApiPropertyOptional(money('FOCUS EffectiveCost')) effectiveCost?: number;
  @ApiPropertyOptional(money('FOCUS ListCost')) listCost?: number;
  @ApiPropertyOptional(money('FOCUS ContractedCost')) contractedCost?: number;
  @ApiPropertyOptional(money('FOCUS ListUnitPrice')) listUnitPrice?: number;
  @ApiPropertyOptional(money('FOCUS ContractedUnitPrice')) contractedUnitPrice?: number;
  pricingQuantity?: number;
  pricingUnit?: string;
  @ApiPropertyOptional(focus('PricingCategory')) pricingCategory?: string;
  /** FOCUS ConsumedQuantity */
  consumedQuantity?: number;
  @ApiPropertyOptional(focus('ConsumedUnit')) consumedUnit?: string;
  @ApiPropertyOptional(focus('PricingCurrency', ' (1.2)')) pricingCurrency?: string;
  @ApiPropertyOptional(money('FOCUS PricingCurrencyContractedUnitPrice')) pricingCurrencyContractedUnitPrice?: number;
  @ApiPropertyOptional(money('FOCUS PricingCurrencyEffectiveCost')) pricingCurrencyEffectiveCost?: number;
  @ApiPropertyOptional(money('FOCUS PricingCurrencyListUnitPrice')) pricingCurrencyListUnitPrice?: number;
  @ApiProperty({ format: 'date-time' }) chargePeriodStart: string;
  @ApiPropertyOptional({ format: 'date-time' }) chargePeriodEnd?: string;
  @ApiPropertyOptional(focus('ChargeCategory', ': Usage, Purchase, Tax, Credit, Adjustment')) chargeCategory?: string;
  @ApiPropertyOptional(focus('ChargeClass', ': Correction')) chargeClass?: string;
  @ApiPropertyOptional(focus('ChargeDescription')) chargeDescription?: string;
  @ApiPropertyOptional(focus('ChargeFrequency')) chargeFrequency?: string;
  @ApiPropertyOptional(focus('CommitmentDiscountId')) commitmentDiscountId?: string;
  @ApiPropertyOptional(focus('CommitmentDiscountName')) commitmentDiscountName?: string;
  @ApiPropertyOptional(focus('CommitmentDiscountCategory')) commitmentDiscountCategory?: string;
  @ApiPropertyOptional(focus('CommitmentDiscountType')) commitmentDiscountType?: string;
  @ApiPropertyOptional(focus('CommitmentDiscountStatus')) commitmentDiscountStatus?: string;
  /** FOCUS CommitmentDiscountQuantity (1.1) */
  commitmentDiscountQuantity?: number;
  @ApiPropertyOptional(focus('CommitmentDiscountUnit', ' (1.1)')) commitmentDiscountUnit?: string;
  @ApiPropertyOptional(focus('CapacityReservationId', ' (1.1)')) capacityReservationId?: string;
  @ApiPropertyOptional(focus('CapacityReservationStatus', ' (1.1)')) capacityReservationStatus?: string;
  @ApiPropertyOptional(focus('InvoiceId', ' (1.2)')) invoiceId?: string;
  @ApiPropertyOptional(focus('SkuId')) skuId?: string;
  @ApiPropertyOptional(focus('SkuPriceId')) skuPriceId?: string;
  @ApiPropertyOptional(focus('SkuMeter', ' (1.1)')) skuMeter?: string;
  @ApiPropertyOptional(focus('SkuPriceDetails', ' (1.1): JSON text')) skuPriceDetails?: string;
  @ApiPropertyOptional(focus('AllocatedMethodId', ' (1.3)')) allocatedMethodId?: string;
  @ApiPropertyOptional(focus('AllocatedMethodDetails', ' (1.3): JSON text')) allocatedMethodDetails?: string;
  @ApiPropertyOptional(focus('AllocatedResourceId', ' (1.3)')) allocatedResourceId?: string;
  @ApiPropertyOptional(focus('AllocatedResourceName', ' (1.3)')) allocatedResourceName?: string;
  @ApiPropertyOptional(focus('AllocatedTags', ' (1.3): JSON text')) allocatedTags?: string;
  @ApiPropertyOptional(focus('ContractApplied', ' (1.3): JSON text')) contractApplied?: string;
  tags: TagDto[];
  /** The `x_` custom columns of the file, as given */
  customColumns?: CustomColumnDto[];
}

export class CostLineItemPage extends PageOf(CostLineItemDto) {}

export class AssetDto {
  id: string;
  resourceId: string;
  resourceName?: string;
  assetType?: string;
  category: string;
  region?: string;
  location?: string;
  country?: string;
  state?: string;
  subregion?: string;
  locationRegion?: string;
  dataCenter?: string;
  assetAccountId: string;
  billingAccountId: string;
  providerName: string;
  period: string;
  tags: TagDto[];
  uploadRefId: string;
}

export class AssetPage extends PageOf(AssetDto) {}
