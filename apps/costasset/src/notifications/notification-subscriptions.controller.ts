import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { PageQuery } from '@lib/http';
import {
  CreateNotificationSubscriptionRequest,
  NotificationSubscriptionPage,
  NotificationSubscriptionResponse,
  UpdateNotificationSubscriptionRequest,
} from './dto/notification-subscription.dto';
import { NotificationSubscriptionsService } from './notification-subscriptions.service';

@ApiTags('notifications')
@Controller('api/costasset/v1/notificationSubscriptions')
export class NotificationSubscriptionsController {
  constructor(private readonly subscriptions: NotificationSubscriptionsService) {}

  @Post()
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Subscribe channels to budget alerts (one budget or all) or to anomalies (System Admin)' })
  @ApiCreatedResponse({ type: NotificationSubscriptionResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, `NOTIFICATION_CHANNEL_UNKNOWN`' })
  create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateNotificationSubscriptionRequest,
  ): Promise<NotificationSubscriptionResponse> {
    return this.subscriptions.create(principal.tenantId, body);
  }

  @Get()
  @SystemAdminOnly()
  @ApiOperation({ summary: 'The notification subscriptions of the tenant, oldest first, in pages (cursor)' })
  @ApiOkResponse({ type: NotificationSubscriptionPage })
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<NotificationSubscriptionPage> {
    return this.subscriptions.page(principal.tenantId, query);
  }

  @Get(':id')
  @SystemAdminOnly()
  @ApiOperation({ summary: 'One notification subscription' })
  @ApiParam({ name: 'id', description: 'The subscription id' })
  @ApiOkResponse({ type: NotificationSubscriptionResponse })
  @ApiNotFoundResponse({ description: '`NOTIFICATION_SUBSCRIPTION_NOT_FOUND`' })
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<NotificationSubscriptionResponse> {
    return this.subscriptions.get(principal.tenantId, id);
  }

  @Patch(':id')
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Change the given fields of a notification subscription' })
  @ApiParam({ name: 'id', description: 'The subscription id' })
  @ApiOkResponse({ type: NotificationSubscriptionResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, `NOTIFICATION_CHANNEL_UNKNOWN`' })
  @ApiNotFoundResponse({ description: '`NOTIFICATION_SUBSCRIPTION_NOT_FOUND`' })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: UpdateNotificationSubscriptionRequest,
  ): Promise<NotificationSubscriptionResponse> {
    return this.subscriptions.update(principal.tenantId, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Delete a notification subscription' })
  @ApiParam({ name: 'id', description: 'The subscription id' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ description: '`NOTIFICATION_SUBSCRIPTION_NOT_FOUND`' })
  remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    return this.subscriptions.remove(principal.tenantId, id);
  }
}
