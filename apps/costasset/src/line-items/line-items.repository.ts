import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { Asset, ASSET } from './schemas/asset.schema';
import { COST_LINE_ITEM, CostLineItem } from './schemas/cost-line-item.schema';
import { Utilization, UTILIZATION } from './schemas/utilization.schema';

@Injectable()
export class CostLineItemRepository extends TenantRepository<CostLineItem> {
  protected override readonly encodesBulkInserts = true;

  constructor(@InjectModel(COST_LINE_ITEM) model: Model<CostLineItem>) {
    super(model);
  }
}

@Injectable()
export class AssetRepository extends TenantRepository<Asset> {
  protected override readonly encodesBulkInserts = true;

  constructor(@InjectModel(ASSET) model: Model<Asset>) {
    super(model);
  }
}

@Injectable()
export class UtilizationRepository extends TenantRepository<Utilization> {
  protected override readonly encodesBulkInserts = true;

  constructor(@InjectModel(UTILIZATION) model: Model<Utilization>) {
    super(model);
  }
}
