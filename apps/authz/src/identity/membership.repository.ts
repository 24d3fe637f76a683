import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { AnyBulkWriteOperation } from 'mongodb';
import { Model } from 'mongoose';
import { isDuplicateKey, onlyDuplicateKeys } from '@lib/core';
import { IdpKeyedRepository } from './idp-keyed.repository';
import { Membership } from './schemas/membership.schema';
import type { UserKey } from './user-key';

export interface MembershipPair extends UserKey {
  teamCode: string;
}

const keyOf = (pair: MembershipPair) => ({ userId: pair.userId, idpId: pair.idpId, teamCode: pair.teamCode });

@Injectable()
export class MembershipRepository extends IdpKeyedRepository<Membership> {
  constructor(@InjectModel(Membership.name) model: Model<Membership>) {
    super(model, { tenantId: 1, userId: 1, teamCode: 1 });
  }

  /** The team codes of one user's internal memberships. */
  async teamCodesOf(tenantId: string, user: UserKey): Promise<string[]> {
    return (await this.find(tenantId, { userId: user.userId, idpId: user.idpId }, {}, { teamCode: 1 })).map((m) => m.teamCode);
  }

  /** Adds one membership; `false` when it already existed (also when a concurrent call won the race). */
  async add(tenantId: string, pair: MembershipPair): Promise<boolean> {
    if (!tenantId) throw new Error('tenantId is required');
    try {
      const result = await this.model
        .updateOne({ tenantId, ...keyOf(pair) }, { $setOnInsert: keyOf(pair) }, { upsert: true, ...this.limits('write') })
        .exec();
      return (result.upsertedCount ?? 0) > 0;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  /** `false` when it did not exist. */
  async remove(tenantId: string, pair: MembershipPair): Promise<boolean> {
    return (await this.deleteOne(tenantId, keyOf(pair))) > 0;
  }

  /** The stored memberships among every (user, team) combination of the two lists, users of one IdP. */
  async existingPairs(tenantId: string, idpId: string, userIds: string[], teamCodes: string[]): Promise<MembershipPair[]> {
    const found = await this.find(
      tenantId,
      { userId: { $in: userIds }, idpId, teamCode: { $in: teamCodes } },
      {},
      { userId: 1, idpId: 1, teamCode: 1, _id: 0 },
    );
    return found.map(keyOf);
  }

  /** One unordered bulk write of upserts: idempotent, and safe against a concurrent identical add. */
  async addPairs(tenantId: string, pairs: MembershipPair[]): Promise<void> {
    const now = new Date();
    const operations = pairs.map(
      (pair) =>
        ({
          updateOne: { filter: keyOf(pair), update: { $setOnInsert: { ...keyOf(pair), createdAt: now, updatedAt: now } }, upsert: true },
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
      pairs.map((pair) => ({ deleteOne: { filter: keyOf(pair) } })),
    );
  }
}
