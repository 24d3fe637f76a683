import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { isDuplicateKey } from '@lib/core';
import { CurrencyService } from '../currency/currency.service';
import { VisibilityService } from '../resource-groups/visibility.service';
import { BudgetEvaluator, StoredBudget } from './budget-evaluator';
import { periodsBetween } from './budget-periods';
import { BudgetProblems } from './budget.problems';
import { BudgetRepository } from './budget.repository';
import { BudgetaryUnit, BudgetRequest, BudgetResponse } from './dto/budget.dto';
import { Budget } from './schemas/budget.schema';
import { ThresholdCrossingRepository } from './threshold-crossing.repository';

function toResponse(budget: StoredBudget): BudgetResponse {
  return {
    id: String(budget._id),
    name: budget.name,
    amount: budget.amount,
    currency: budget.currency,
    scope: budget.scopeGroupId ? { groupId: budget.scopeGroupId } : { expr: budget.scopeExpr },
    startPeriod: budget.startPeriod,
    endPeriod: budget.endPeriod,
    thresholds: budget.thresholds,
    forecastThresholds: budget.forecastThresholds ?? [],
  };
}

@Injectable()
export class BudgetsService {
  constructor(
    private readonly budgets: BudgetRepository,
    private readonly crossings: ThresholdCrossingRepository,
    private readonly evaluator: BudgetEvaluator,
    private readonly currency: CurrencyService,
    private readonly visibility: VisibilityService,
  ) {}

  async list(principal: Principal): Promise<BudgetResponse[]> {
    return (await this.visibleBudgets(principal)).map(toResponse);
  }

  async get(principal: Principal, id: string): Promise<BudgetResponse> {
    const budget = await this.stored(principal.tenantId, id);
    const groups = await this.visibility.budgetaryGroupIdsFor(principal);
    if (groups && !(budget.scopeGroupId && groups.includes(budget.scopeGroupId))) throw BudgetProblems.notFound(id);
    return toResponse(budget);
  }

  async create(principal: Principal, request: BudgetRequest): Promise<BudgetResponse> {
    const fields = await this.validated(principal.tenantId, request);
    try {
      return toResponse(await this.budgets.create(principal.tenantId, fields));
    } catch (error) {
      if (isDuplicateKey(error)) throw BudgetProblems.nameTaken(request.name);
      throw error;
    }
  }

  async replace(principal: Principal, id: string, request: BudgetRequest): Promise<BudgetResponse> {
    await this.stored(principal.tenantId, id);
    const fields = await this.validated(principal.tenantId, request);
    try {
      const updated = await this.budgets.findOneAndUpdate(
        principal.tenantId,
        { _id: id },
        { $set: fields, $unset: fields.scopeExpr ? { scopeGroupId: 1 } : { scopeExpr: 1 } },
      );
      if (!updated) throw BudgetProblems.notFound(id);
      return toResponse(updated);
    } catch (error) {
      if (isDuplicateKey(error)) throw BudgetProblems.nameTaken(request.name);
      throw error;
    }
  }

  async remove(principal: Principal, id: string): Promise<void> {
    const budget = await this.stored(principal.tenantId, id);
    await this.budgets.deleteOne(principal.tenantId, { _id: budget._id });
    await this.crossings.forgetBudget(principal.tenantId, id);
  }

  /**
   * One row per visible budget and period; empty when there is none (the controller
   * answers 204). A member's actuals cover only the line items its visibility groups show it.
   */
  async budgetaryUnits(principal: Principal): Promise<BudgetaryUnit[]> {
    const budgets = await this.visibleBudgets(principal);
    // one import view and readiness for all of them: every budget reads the same line items
    const [visible, view] = await Promise.all([this.visibility.filterFor(principal), this.evaluator.view(principal.tenantId)]);
    const units = await Promise.all(budgets.map((budget) => this.evaluator.units(principal.tenantId, budget, visible, undefined, view)));
    return units.flat();
  }

  /**
   * A System Admin sees every budget; a member the budgets scoped by a `budgetary` resource group
   * that names one of its teams in `context.teams` (expression-scoped budgets have no audience
   * but System Admins); a member without teams sees none.
   */
  private async visibleBudgets(principal: Principal): Promise<StoredBudget[]> {
    const groups = await this.visibility.budgetaryGroupIdsFor(principal);
    if (groups?.length === 0) return [];
    return this.budgets.find(principal.tenantId, groups ? { scopeGroupId: { $in: groups } } : {}, { sort: { name: 1 } });
  }

  private async stored(tenantId: string, id: string): Promise<StoredBudget> {
    const budget = await this.budgets.findById(tenantId, id);
    if (!budget) throw BudgetProblems.notFound(id);
    return budget;
  }

  private async validated(tenantId: string, request: BudgetRequest): Promise<Omit<Budget, 'tenantId'>> {
    if (Boolean(request.scope.expr) === Boolean(request.scope.groupId)) throw BudgetProblems.scope();
    const periods = periodsBetween(request.startPeriod, request.endPeriod);
    if (periods.length === 0 || periods.length > 120) throw BudgetProblems.periods();
    await this.evaluator.scopeFilter(tenantId, { scopeExpr: request.scope.expr, scopeGroupId: request.scope.groupId });
    const conversion = await this.currency.conversionFor(tenantId);
    if (conversion.rateOf(request.currency) === undefined) throw BudgetProblems.noRate(request.currency, conversion.corporateCurrency);
    return {
      name: request.name.trim(),
      amount: request.amount,
      currency: request.currency,
      scopeExpr: request.scope.expr,
      scopeGroupId: request.scope.groupId,
      startPeriod: request.startPeriod,
      endPeriod: request.endPeriod,
      thresholds: [...request.thresholds].sort((a, b) => a - b),
      forecastThresholds: [...(request.forecastThresholds ?? [])].sort((a, b) => a - b),
    };
  }
}
