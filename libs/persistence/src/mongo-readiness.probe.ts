import { Injectable } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';
import type { ReadinessProbe } from '@lib/core';

@Injectable()
export class MongoReadinessProbe implements ReadinessProbe {
  readonly name = 'mongodb';

  constructor(@InjectConnection() private readonly connection: Connection) {}

  async check(): Promise<void> {
    if (this.connection.readyState !== 1 || !this.connection.db) throw new Error('disconnected');
    await this.connection.db.admin().command({ ping: 1 });
  }
}
