import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

/** A per-period (monthly) budget over a slice of the tenant's costs. */
@Schema({ collection: 'budgets', timestamps: true })
export class Budget {
  tenantId: string;

  @Prop({ required: true })
  name: string;

  /** Budget per period, in `currency`. */
  @Prop({ required: true })
  amount: number;

  @Prop({ required: true })
  currency: string;

  /** Either an expression or the id of a `budgetary` resource group. */
  @Prop()
  scopeExpr?: string;

  @Prop()
  scopeGroupId?: string;

  @Prop({ required: true })
  startPeriod: string;

  @Prop({ required: true })
  endPeriod: string;

  /** Percentages of the amount, ascending. */
  @Prop({ type: [Number], default: [] })
  thresholds: number[];

  /** Percentages of the amount the current period's month-end forecast may cross ("forecast to exceed"), ascending. */
  @Prop({ type: [Number], default: [] })
  forecastThresholds: number[];
}

export const BudgetSchema = SchemaFactory.createForClass(Budget);
BudgetSchema.plugin(tenantScopedPlugin);
BudgetSchema.index({ tenantId: 1, name: 1 }, { unique: true, collation: { locale: 'en', strength: 2 } });
// Evaluation finds the budgets whose period range holds a period (a simple-collation query).
BudgetSchema.index({ tenantId: 1, startPeriod: 1 });
