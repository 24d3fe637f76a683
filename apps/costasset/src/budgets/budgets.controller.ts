import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Res } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { AnyMember, CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { BudgetsService } from './budgets.service';
import { BudgetaryUnit, BudgetRequest, BudgetResponse } from './dto/budget.dto';

@ApiTags('budgets')
@Controller('api/costasset/v1/budgetController')
export class BudgetsController {
  constructor(private readonly budgets: BudgetsService) {}

  @Get('budgetaryUnits')
  @AnyMember()
  @ApiOperation({ summary: 'Budget amount, actual cost, remaining and percent used per budget and period, in the corporate currency' })
  @ApiOkResponse({ type: [BudgetaryUnit] })
  @ApiNoContentResponse({ description: 'No budgets available' })
  async budgetaryUnits(
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BudgetaryUnit[] | void> {
    const units = await this.budgets.budgetaryUnits(principal);
    if (units.length === 0) {
      response.status(204);
      return;
    }
    return units;
  }

  @Get('budgets')
  @AnyMember()
  @ApiOkResponse({ type: [BudgetResponse] })
  list(@CurrentPrincipal() principal: Principal): Promise<BudgetResponse[]> {
    return this.budgets.list(principal);
  }

  @Get('budgets/:id')
  @AnyMember()
  @ApiOkResponse({ type: BudgetResponse })
  @ApiNotFoundResponse({ description: '`BUDGET_NOT_FOUND`' })
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<BudgetResponse> {
    return this.budgets.get(principal, id);
  }

  @Post('budgets')
  @SystemAdminOnly()
  @ApiCreatedResponse({ type: BudgetResponse })
  @ApiConflictResponse({ description: '`BUDGET_NAME_TAKEN` (names are unique per tenant, case-insensitively)' })
  create(@CurrentPrincipal() principal: Principal, @Body() body: BudgetRequest): Promise<BudgetResponse> {
    return this.budgets.create(principal, body);
  }

  @Put('budgets/:id')
  @SystemAdminOnly()
  @ApiOkResponse({ type: BudgetResponse })
  replace(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: BudgetRequest): Promise<BudgetResponse> {
    return this.budgets.replace(principal, id, body);
  }

  @Delete('budgets/:id')
  @HttpCode(204)
  @SystemAdminOnly()
  remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    return this.budgets.remove(principal, id);
  }
}
