import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CostDataManager, CurrentPrincipal, Principal } from '@lib/auth';
import { DEFAULT_PAGE_SIZE, PageQuery, HeavyRoute } from '@lib/http';
import { DataManagementService } from './data-management.service';
import {
  BillingAccountSummary,
  CreateDeletionRequestDto,
  DeletionFilterValues,
  DeletionRequestPage,
  DeletionRequestResponse,
} from './dto/deletion-request.dto';

@ApiTags('data management')
@Controller('api/costasset/v1/dataManagement')
@CostDataManager()
export class DataManagementController {
  constructor(private readonly dataManagement: DataManagementService) {}

  @Post()
  @ApiOperation({ summary: 'Submits a deletion request: a job removes the matching cost line items, assets and utilization in batches' })
  @ApiCreatedResponse({ type: DeletionRequestResponse })
  @ApiBadRequestResponse({
    description: '`DELETION_FILTER_REQUIRED`, `DELETION_PERIODS_INVALID`, `DELETION_ACCOUNTS_REQUIRED`, `VALIDATION_FAILED`',
  })
  @ApiForbiddenResponse({
    description: "`DELETION_OUTSIDE_VISIBILITY`: a named billing account is not wholly within the caller's visibility",
  })
  submit(@CurrentPrincipal() principal: Principal, @Body() body: CreateDeletionRequestDto): Promise<DeletionRequestResponse> {
    return this.dataManagement.submit(principal, body);
  }

  @Get()
  @ApiOperation({
    summary: "Lists the tenant's deletion requests, newest first: all of them for a System Admin, the caller's own for a Cost Data Manager",
  })
  @ApiOkResponse({ type: DeletionRequestPage })
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<DeletionRequestPage> {
    return this.dataManagement.list(principal, query.limit ?? DEFAULT_PAGE_SIZE, query.cursor);
  }

  @Get('accounts')
  @HeavyRoute()
  @ApiOperation({
    summary: "Billing accounts holding cost line items, with row counts and period range (those wholly within the caller's visibility)",
  })
  @ApiOkResponse({ type: [BillingAccountSummary] })
  accounts(@CurrentPrincipal() principal: Principal): Promise<BillingAccountSummary[]> {
    return this.dataManagement.accounts(principal);
  }

  @Get('filters')
  @ApiOperation({ summary: 'Values to populate the deletion filters: providers, accounts, periods' })
  @ApiOkResponse({ type: DeletionFilterValues })
  filters(@CurrentPrincipal() principal: Principal): Promise<DeletionFilterValues> {
    return this.dataManagement.filters(principal);
  }

  @Post(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancels a pending or running deletion request; rows already removed stay removed (see rowsRemoved)' })
  @ApiOkResponse({ type: DeletionRequestResponse })
  @ApiNotFoundResponse({ description: '`DELETION_REQUEST_NOT_FOUND`' })
  @ApiConflictResponse({ description: '`DELETION_NOT_CANCELLABLE`: the request already completed, failed or was cancelled' })
  cancel(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<DeletionRequestResponse> {
    return this.dataManagement.cancel(principal, id);
  }
}
