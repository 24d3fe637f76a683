import { Injectable } from '@nestjs/common';
import { Types } from 'mongoose';
import type { Principal } from '@lib/auth';
import { isDuplicateKey } from '@lib/core';
import {
  CreateResourceGroupRequest,
  ReplaceResourceGroupRequest,
  ResourceGroupResponse,
  UpdateResourceGroupRequest,
} from './dto/resource-group.dto';
import { parseGroupExpression } from './group-expression';
import { ResourceGroupProblems } from './resource-group.problems';
import { ResourceGroupRepository } from './resource-group.repository';
import { ResourceGroup } from './schemas/resource-group.schema';

type StoredGroup = ResourceGroup & { _id: Types.ObjectId };

function toResponse(group: StoredGroup): ResourceGroupResponse {
  return { _id: group.groupId, type: group.type, version: group.version, expr: group.expr, context: group.context ?? {} };
}

const teamsOf = (context: Record<string, string[]> | undefined) => [...new Set(context?.teams ?? [])];

@Injectable()
export class ResourceGroupsService {
  constructor(private readonly groups: ResourceGroupRepository) {}

  /** A System Admin sees every group; anyone else the groups whose `context.teams` holds one of its teams. */
  async list(principal: Principal): Promise<ResourceGroupResponse[]> {
    const filter = principal.isSystemAdmin ? {} : { teams: { $in: principal.teams.map((team) => team.teamCode) } };
    const found = await this.groups.find(principal.tenantId, filter, { sort: { groupId: 1 } });
    return found.map(toResponse);
  }

  async create(principal: Principal, request: CreateResourceGroupRequest): Promise<ResourceGroupResponse> {
    parseGroupExpression(request.expr);
    const groupId = request._id ?? new Types.ObjectId().toHexString();
    try {
      const created = await this.groups.create(principal.tenantId, {
        groupId,
        type: request.type,
        version: 1,
        expr: request.expr,
        context: request.context ?? {},
        teams: teamsOf(request.context),
      });
      return toResponse(created);
    } catch (error) {
      if (isDuplicateKey(error)) throw ResourceGroupProblems.exists(groupId);
      throw error;
    }
  }

  replace(principal: Principal, request: ReplaceResourceGroupRequest): Promise<ResourceGroupResponse> {
    return this.update(principal, request, { type: request.type, expr: request.expr, context: request.context ?? {} });
  }

  patch(principal: Principal, request: UpdateResourceGroupRequest): Promise<ResourceGroupResponse> {
    const changes: Partial<ResourceGroup> = {};
    if (request.type !== undefined) changes.type = request.type;
    if (request.expr !== undefined) changes.expr = request.expr;
    if (request.context !== undefined) changes.context = request.context;
    return this.update(principal, request, changes);
  }

  async remove(principal: Principal, groupId: string): Promise<ResourceGroupResponse> {
    const removed = await this.groups.findOneAndDelete(principal.tenantId, { groupId });
    if (!removed) throw ResourceGroupProblems.notFound(groupId);
    return toResponse(removed);
  }

  /** Each change bumps the version; a given `version` must match the stored one (optimistic concurrency). */
  private async update(
    principal: Principal,
    request: UpdateResourceGroupRequest,
    changes: Partial<ResourceGroup>,
  ): Promise<ResourceGroupResponse> {
    if (changes.expr !== undefined) parseGroupExpression(changes.expr);
    if (changes.context !== undefined) changes.teams = teamsOf(changes.context);
    const filter = request.version === undefined ? { groupId: request._id } : { groupId: request._id, version: request.version };
    const updated = await this.groups.findOneAndUpdate(principal.tenantId, filter, { $set: changes, $inc: { version: 1 } });
    if (updated) return toResponse(updated);
    const current = await this.groups.findOne(principal.tenantId, { groupId: request._id });
    if (!current) throw ResourceGroupProblems.notFound(request._id);
    throw ResourceGroupProblems.versionConflict(request._id, current.version);
  }
}
