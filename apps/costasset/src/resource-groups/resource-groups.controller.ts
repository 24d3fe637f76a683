import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { AnyMember, CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import {
  CreateResourceGroupRequest,
  ReplaceResourceGroupRequest,
  ResourceGroupResponse,
  UpdateResourceGroupRequest,
} from './dto/resource-group.dto';
import { ResourceGroupsService } from './resource-groups.service';

@ApiTags('dynamic resource groups')
@Controller('api/costasset/v1/dynamicResourceGroups')
export class ResourceGroupsController {
  constructor(private readonly groups: ResourceGroupsService) {}

  @Get()
  @AnyMember()
  @ApiOperation({ summary: 'Groups the caller is authorized for (a System Admin: all)' })
  @ApiOkResponse({ type: [ResourceGroupResponse] })
  @ApiNoContentResponse({ description: 'No group is authorized for the caller' })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ResourceGroupResponse[] | void> {
    const groups = await this.groups.list(principal);
    if (groups.length === 0) {
      response.status(204);
      return;
    }
    return groups;
  }

  @Post()
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Creates a group (200, as the interface gives)' })
  @ApiOkResponse({ type: ResourceGroupResponse })
  @ApiBadRequestResponse({ description: 'Invalid group or expression (`INVALID_EXPRESSION` names the position)' })
  @ApiConflictResponse({ description: '`RESOURCE_GROUP_EXISTS`' })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateResourceGroupRequest): Promise<ResourceGroupResponse> {
    return this.groups.create(principal, body);
  }

  @Put()
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Replaces type, expr and context of the group `_id`' })
  @ApiOkResponse({ type: ResourceGroupResponse })
  @ApiNotFoundResponse({ description: '`RESOURCE_GROUP_NOT_FOUND`' })
  @ApiConflictResponse({ description: '`VERSION_CONFLICT` when `version` is not the stored one' })
  replace(@CurrentPrincipal() principal: Principal, @Body() body: ReplaceResourceGroupRequest): Promise<ResourceGroupResponse> {
    return this.groups.replace(principal, body);
  }

  @Patch()
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Changes the given fields of the group `_id`' })
  @ApiOkResponse({ type: ResourceGroupResponse })
  @ApiNotFoundResponse({ description: '`RESOURCE_GROUP_NOT_FOUND`' })
  @ApiConflictResponse({ description: '`VERSION_CONFLICT`' })
  patch(@CurrentPrincipal() principal: Principal, @Body() body: UpdateResourceGroupRequest): Promise<ResourceGroupResponse> {
    return this.groups.patch(principal, body);
  }

  @Delete(':id')
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Deletes a group (200 with the deleted group, as the interface gives)' })
  @ApiOkResponse({ type: ResourceGroupResponse })
  @ApiNotFoundResponse({ description: '`RESOURCE_GROUP_NOT_FOUND`' })
  remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<ResourceGroupResponse> {
    return this.groups.remove(principal, id);
  }
}
