import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
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
  CreateNotificationChannelRequest,
  NotificationChannelPage,
  NotificationChannelResponse,
  NotificationChannelWithSecretResponse,
  UpdateNotificationChannelRequest,
} from './dto/notification-channel.dto';
import { NotificationDeliveryPage, NotificationDeliveryResponse } from './dto/notification-delivery.dto';
import { NotificationChannelsService } from './notification-channels.service';

@ApiTags('notifications')
@Controller('api/costasset/v1/notificationChannels')
export class NotificationChannelsController {
  constructor(private readonly channels: NotificationChannelsService) {}

  @Post()
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Create a notification channel: an email list or a signed webhook (System Admin)',
    description: 'A webhook without `secret` gets a generated signing secret, shown once in this answer (`signingSecret`).',
  })
  @ApiCreatedResponse({ type: NotificationChannelWithSecretResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, `NOTIFICATION_HOST_NOT_ALLOWED`, `SMTP_NOT_CONFIGURED`' })
  create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateNotificationChannelRequest,
  ): Promise<NotificationChannelWithSecretResponse> {
    return this.channels.create(principal.tenantId, body);
  }

  @Get()
  @SystemAdminOnly()
  @ApiOperation({ summary: 'The notification channels of the tenant, oldest first, in pages (cursor)' })
  @ApiOkResponse({ type: NotificationChannelPage })
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<NotificationChannelPage> {
    return this.channels.page(principal.tenantId, query);
  }

  @Get(':id')
  @SystemAdminOnly()
  @ApiOperation({ summary: 'One notification channel (never its webhook URL or secret)' })
  @ApiParam({ name: 'id', description: 'The channel id' })
  @ApiOkResponse({ type: NotificationChannelResponse })
  @ApiNotFoundResponse({ description: '`NOTIFICATION_CHANNEL_NOT_FOUND`' })
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<NotificationChannelResponse> {
    return this.channels.get(principal.tenantId, id);
  }

  @Patch(':id')
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Change the given fields of a notification channel (not its type)',
    description: '`rotateSecret: true` generates a new signing secret, shown once in this answer (`signingSecret`).',
  })
  @ApiParam({ name: 'id', description: 'The channel id' })
  @ApiOkResponse({ type: NotificationChannelWithSecretResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, `NOTIFICATION_HOST_NOT_ALLOWED`' })
  @ApiNotFoundResponse({ description: '`NOTIFICATION_CHANNEL_NOT_FOUND`' })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: UpdateNotificationChannelRequest,
  ): Promise<NotificationChannelWithSecretResponse> {
    return this.channels.update(principal.tenantId, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Delete a notification channel; it is taken out of every subscription naming it' })
  @ApiParam({ name: 'id', description: 'The channel id' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ description: '`NOTIFICATION_CHANNEL_NOT_FOUND`' })
  remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    return this.channels.remove(principal.tenantId, id);
  }

  @Post(':id/test')
  @HttpCode(202)
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Send a test message to this channel: queues a delivery and answers it (follow it in the delivery log)' })
  @ApiParam({ name: 'id', description: 'The channel id' })
  @ApiAcceptedResponse({ type: NotificationDeliveryResponse })
  @ApiNotFoundResponse({ description: '`NOTIFICATION_CHANNEL_NOT_FOUND`' })
  sendTest(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<NotificationDeliveryResponse> {
    return this.channels.sendTest(principal.tenantId, id);
  }

  @Get(':id/deliveries')
  @SystemAdminOnly()
  @ApiOperation({ summary: 'The delivery log of a channel, newest first, in pages (cursor): status, attempts, last error' })
  @ApiParam({ name: 'id', description: 'The channel id' })
  @ApiOkResponse({ type: NotificationDeliveryPage })
  @ApiNotFoundResponse({ description: '`NOTIFICATION_CHANNEL_NOT_FOUND`' })
  deliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: PageQuery,
  ): Promise<NotificationDeliveryPage> {
    return this.channels.deliveryLog(principal.tenantId, id, query);
  }
}
