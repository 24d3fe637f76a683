import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { AnyBulkWriteOperation } from 'mongodb';
import { Model } from 'mongoose';
import { isDuplicateKey, onlyDuplicateKeys, TenantRepository } from '@lib/persistence';
import { Membership } from './schemas/membership.schema';

export interface MembershipPair {
  userId: string;
  teamCode: string;
}

@Injectable()
export class MembershipRepository extends TenantRepository<Membership> {
  constructor(@InjectModel(Membership.name) model: Model<Membership>) {
    super(model);
  }

  /** Adds one membership; `false` when it already existed (also when a concurrent call won the race). */
  async add(tenantId: string, pair: MembershipPair): Promise<boolean> {
    if (!tenantId) throw new Error('tenantId is required');
    try {
      const result = await this.model
        .updateOne(
          { tenantId, userId: pair.userId, teamCode: pair.teamCode },
          { $setOnInsert: { userId: pair.userId, teamCode: pair.teamCode } },
          { upsert: true, ...this.limits('write') },
        )
        .exec();
      return (result.upsertedCount ?? 0) > 0;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  /** The stored memberships among every (user, team) combination of the two lists. */
  async existingPairs(tenantId: string, userIds: string[], teamCodes: string[]): Promise<MembershipPair[]> {
    const found = await this.find(tenantId, { userId: { $in: userIds }, teamCode: { $in: teamCodes } }, {}, { userId: 1, teamCode: 1, _id: 0 });
    return found.map((m) => ({ userId: m.userId, teamCode: m.teamCode }));
  }

  /** One unordered bulk write of upserts: idempotent, and safe against a concurrent identical add. */
  async addPairs(tenantId: string, pairs: MembershipPair[]): Promise<void> {
    const now = new Date();
    const operations = pairs.map(
      (pair) =>
        ({
          updateOne: {
            filter: { userId: pair.userId, teamCode: pair.teamCode },
            update: { $setOnInsert: { userId: pair.userId, teamCode: pair.teamCode, createdAt: now, updatedAt: now } },
            upsert: true,
          },
        }) as AnyBulkWriteOperation<Omit<Membership, 'tenantId'>>,
    );
    try {
      await this.bulkWrite(tenantId, operations);
    } catch (error) {
      if (!onlyDuplicateKeys(error)) throw error;
    }
  }

  /** One unordered bulk write of deletes: removing a missing membership is a no-op. */
  async removePairs(tenantId: string, pairs: MembershipPair[]): Promise<void> {
    await this.bulkWrite(
      tenantId,
      pairs.map((pair) => ({ deleteOne: { filter: { userId: pair.userId, teamCode: pair.teamCode } } })),
    );
  }
}
