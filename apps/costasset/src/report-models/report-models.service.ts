import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { ProblemException, isDuplicateKey } from '@lib/core';
import { CurrencyService } from '../currency/currency.service';
import { combineFilters, compileExpression, ExpressionError, parameterNames, parse, toProblem } from '../expressions';
import { VisibilityService } from '../resource-groups/visibility.service';
import { lineItemCount, RollupPlanner } from '../rollups/rollup-planner';
import { ExecutionQuery, ReportExecutionResponse, ReportRow, SavedReportOutputPage } from './dto/report-execution.dto';
import {
  CreateReportModelQuery,
  CreateReportModelRequest,
  PatchReportModelRequest,
  ReplaceReportModelQuery,
  ReplaceReportModelRequest,
  ReportModelResponse,
} from './dto/report-model.dto';
import { ReportModelProblems } from './report-model.problems';
import { ReportModelRepository } from './report-model.repository';
import { ReportOutputRepository } from './report-output.repository';
import { reportPipeline, roundMoney, templateFields } from './report-templates';
import { ReportModel } from './schemas/report-model.schema';
import { parseTemplateParams } from './template-params';

type StoredModel = ReportModel & { reportModelId: string };

function withExpressionProblems<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof ExpressionError) throw toProblem(error);
    throw error;
  }
}

function toResponse(model: StoredModel): ReportModelResponse {
  return {
    reportModelId: model.reportModelId,
    templateId: model.templateId,
    type: model.type,
    scope: model.scope,
    vtags: model.vtags,
    expr: model.expr,
    append: model.append,
    saveOutput: model.saveOutput,
    parameters: parameterNames(parse(model.expr)),
    createdBy: model.createdBy,
  };
}

const canSee = (principal: Principal, model: StoredModel) =>
  model.scope === 'public' || principal.isSystemAdmin || model.createdBy === principal.userId;

@Injectable()
export class ReportModelsService {
  constructor(
    private readonly models: ReportModelRepository,
    private readonly outputs: ReportOutputRepository,
    private readonly visibility: VisibilityService,
    private readonly currency: CurrencyService,
    private readonly planner: RollupPlanner,
  ) {}

  async list(principal: Principal): Promise<ReportModelResponse[]> {
    const filter = principal.isSystemAdmin ? {} : { $or: [{ scope: 'public' }, { createdBy: principal.userId }] };
    return (await this.models.find(principal.tenantId, filter, { sort: { reportModelId: 1 } })).map(toResponse);
  }

  async get(principal: Principal, id: string): Promise<ReportModelResponse> {
    return toResponse(await this.visible(principal, id));
  }

  async create(
    principal: Principal,
    id: string,
    query: CreateReportModelQuery,
    body: CreateReportModelRequest,
  ): Promise<ReportModelResponse> {
    if (query.reportModelId && query.reportModelId !== id) throw ReportModelProblems.idMismatch();
    await this.validate(principal.tenantId, body.expr, body.vtags);
    try {
      const created = await this.models.create(principal.tenantId, {
        reportModelId: id,
        templateId: query.templateId,
        type: body.type,
        scope: body.scope ?? 'public',
        vtags: body.vtags,
        expr: body.expr,
        append: body.append,
        saveOutput: query.saveOutput ?? false,
        createdBy: principal.userId,
      });
      return toResponse(created);
    } catch (error) {
      if (isDuplicateKey(error)) throw ReportModelProblems.exists(id);
      throw error;
    }
  }

  replace(principal: Principal, id: string, query: ReplaceReportModelQuery, body: ReplaceReportModelRequest): Promise<ReportModelResponse> {
    return this.change(principal, id, query, { ...body });
  }

  patch(principal: Principal, id: string, query: ReplaceReportModelQuery, body: PatchReportModelRequest): Promise<ReportModelResponse> {
    return this.change(principal, id, query, { ...body });
  }

  async remove(principal: Principal, id: string): Promise<{ reportModelId: string; deleted: true; outputsDeleted: number }> {
    const model = await this.owned(principal, id);
    await this.models.deleteOne(principal.tenantId, { reportModelId: model.reportModelId });
    const outputsDeleted = await this.outputs.deleteMany(principal.tenantId, { reportModelId: id });
    return { reportModelId: id, deleted: true, outputsDeleted };
  }

  /**
   * Runs the template as one aggregation in the database over the line items selected by the
   * model expression (placeholders filled as literals) AND the model's vtags AND what the caller
   * itself may see, so a shared report never shows a member more than its own visibility.
   */
  async execute(principal: Principal, id: string, query: ExecutionQuery): Promise<ReportExecutionResponse> {
    if (query.reportModelId && query.reportModelId !== id) throw ReportModelProblems.idMismatch();
    // whether rollups are current, and the import view, do not depend on the model: asked at the same time
    const [model, view] = await Promise.all([this.visible(principal, id), this.planner.view(principal.tenantId)]);
    const params = parseTemplateParams(query.templateParams);
    const modelFilter = withExpressionProblems(() => compileExpression(model.expr, params));
    const [vtagFilter, callerFilter, currencies] = await Promise.all([
      this.vtagFilter(principal.tenantId, model.vtags),
      this.visibility.filterFor(principal),
      this.currency.currencies(principal.tenantId),
    ]);
    const filter = combineFilters(modelFilter as Record<string, unknown>, vtagFilter, callerFilter);
    const where = await this.planner.choose(principal.tenantId, filter, templateFields(model.templateId), view);
    const groups = await this.planner.aggregate<{ _id: Record<string, string | null>; cost: number; lineItems: number }>(
      principal.tenantId,
      where,
      reportPipeline(model.templateId, filter, lineItemCount(where.source)),
      view,
    );
    const rows: ReportRow[] = groups.map((group) => ({ key: group._id, cost: roundMoney(group.cost), lineItems: group.lineItems }));
    const result: ReportExecutionResponse = {
      reportModelId: id,
      templateId: model.templateId,
      params,
      currency: currencies.defaultCurrency,
      rows,
      total: roundMoney(rows.reduce((sum, row) => sum + row.cost, 0)),
      generatedAt: new Date().toISOString(),
      ...where,
    };
    if (model.saveOutput) await this.save(principal, model, result);
    return result;
  }

  /**
   * Saved outputs hold rows computed within the visibility of whoever ran the model: a caller sees
   * those whose every visibility group is one of its own (a System Admin sees all), and a page
   * leaves the others out, so it can hold fewer than `limit` (follow `nextCursor`).
   */
  async savedOutputs(principal: Principal, id: string, limit: number, cursor?: string): Promise<SavedReportOutputPage> {
    await this.visible(principal, id);
    const [page, readerGroups] = await Promise.all([
      this.outputs.page(principal.tenantId, { reportModelId: id }, limit, cursor),
      this.visibility.groupIdsFor(principal),
    ]);
    const seesAll = (groups: string[] | null | undefined) =>
      readerGroups === null || (Array.isArray(groups) && groups.every((group) => readerGroups.includes(group)));
    return {
      items: page.items
        .filter((output) => seesAll(output.visibilityGroupIds))
        .map((output) => ({
          id: String(output._id),
          reportModelId: output.reportModelId,
          templateId: output.templateId,
          params: output.params,
          currency: output.currency,
          rows: output.rows as unknown as ReportRow[],
          total: output.total,
          executedBy: output.executedBy,
          generatedAt: (output.generatedAt ?? new Date(0)).toISOString(),
        })),
      nextCursor: page.nextCursor,
    };
  }

  private async save(principal: Principal, model: StoredModel, result: ReportExecutionResponse): Promise<void> {
    if (!model.append) await this.outputs.deleteMany(principal.tenantId, { reportModelId: model.reportModelId });
    const { reportModelId, templateId, params, currency, rows, total } = result;
    const visibilityGroupIds = await this.visibility.groupIdsFor(principal);
    await this.outputs.create(principal.tenantId, {
      reportModelId,
      templateId,
      params,
      currency,
      rows: rows as never,
      total,
      executedBy: principal.userId,
      visibilityGroupIds,
    });
  }

  private async change(
    principal: Principal,
    id: string,
    query: ReplaceReportModelQuery,
    changes: Partial<ReportModel>,
  ): Promise<ReportModelResponse> {
    if (query.reportModelId && query.reportModelId !== id) throw ReportModelProblems.idMismatch();
    const current = await this.owned(principal, id);
    await this.validate(principal.tenantId, changes.expr ?? current.expr, changes.vtags ?? current.vtags);
    if (query.templateId) changes.templateId = query.templateId;
    if (query.saveOutput !== undefined) changes.saveOutput = query.saveOutput;
    const updated = await this.models.findOneAndUpdate(principal.tenantId, { reportModelId: id }, { $set: changes });
    if (!updated) throw ReportModelProblems.notFound(id);
    return toResponse(updated);
  }

  private async validate(tenantId: string, expr: string, vtags: string[]): Promise<void> {
    withExpressionProblems(() => parse(expr));
    await this.vtagFilter(tenantId, vtags);
  }

  private async vtagFilter(tenantId: string, vtags: string[]): Promise<Record<string, unknown>> {
    try {
      return await this.visibility.namedVisibilityFilter(tenantId, vtags);
    } catch (error) {
      if (error instanceof ProblemException && error.code === 'RESOURCE_GROUP_NOT_FOUND') {
        throw new ProblemException(400, 'UNKNOWN_VISIBILITY_TAG', `${error.message}: vtags must name visibility groups`);
      }
      throw error;
    }
  }

  private async visible(principal: Principal, id: string): Promise<StoredModel> {
    const model = await this.models.findOne(principal.tenantId, { reportModelId: id });
    if (!model || !canSee(principal, model)) throw ReportModelProblems.notFound(id);
    return model;
  }

  private async owned(principal: Principal, id: string): Promise<StoredModel> {
    const model = await this.visible(principal, id);
    if (!principal.isSystemAdmin && model.createdBy !== principal.userId) throw ReportModelProblems.notOwner();
    return model;
  }
}
