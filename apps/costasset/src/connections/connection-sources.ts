import { Injectable } from '@nestjs/common';
import { SecretSealer } from '@lib/config';
import { CostassetEnvironment } from '../costasset.environment';
import { ConnectionManifestRepository } from './connection.repositories';
import type { ExportLayout, ManifestReader } from './layouts/export-layout';
import { BucketSource, ListedObject, readSmall, SourceRefusal } from './sources/bucket-source';
import { ConnectionCredentials, openSource } from './sources/open-source';
import type { Connection } from './schemas/connection.schema';

/** A manifest is a few kilobytes; one of megabytes is not one. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

export const credentialsContext = (tenantId: string, connectionId: string) => `${tenantId}:connection:${connectionId}`;

/** Opens a connection's bucket or container, lists it within the limit, and reads manifests once per ETag. */
@Injectable()
export class ConnectionSources {
  constructor(
    private readonly sealer: SecretSealer,
    private readonly manifests: ConnectionManifestRepository,
    private readonly env: CostassetEnvironment,
  ) {}

  seal(tenantId: string, connectionId: string, credentials: ConnectionCredentials): string {
    return this.sealer.seal(JSON.stringify(credentials), credentialsContext(tenantId, connectionId));
  }

  credentialsOf(connection: Pick<Connection, 'tenantId' | 'connectionId' | 'sealedCredentials'>): ConnectionCredentials {
    return JSON.parse(
      this.sealer.open(connection.sealedCredentials, credentialsContext(connection.tenantId, connection.connectionId)),
    ) as ConnectionCredentials;
  }

  open(connection: Pick<Connection, 'type' | 'source'>, credentials: ConnectionCredentials): Promise<BucketSource> {
    return openSource(connection, credentials, this.env.CONNECTIONS_ALLOW_PRIVATE_HOSTS);
  }

  /** Every object under the prefix; more than CONNECTIONS_MAX_OBJECTS is refused. */
  async list(source: BucketSource, prefix: string): Promise<ListedObject[]> {
    const objects: ListedObject[] = [];
    for await (const object of source.list(prefix)) {
      if (objects.length === this.env.CONNECTIONS_MAX_OBJECTS)
        throw new SourceRefusal(
          `more than ${this.env.CONNECTIONS_MAX_OBJECTS} objects under ${prefix || 'the bucket'} (CONNECTIONS_MAX_OBJECTS): ` +
            'narrow the prefix to one export',
        );
      objects.push(object);
    }
    return objects;
  }

  /** Reads each manifest; with a connection, one read before at the same ETag is taken instead of reading again. */
  manifestReader(source: BucketSource, layout: ExportLayout, stored?: { tenantId: string; connectionId: string }): ManifestReader {
    return async (object) => {
      if (stored) {
        const known = await this.manifests.findOne(stored.tenantId, {
          connectionId: stored.connectionId,
          key: object.key,
          etag: object.etag,
        });
        if (known)
          return {
            execution: known.execution,
            billingPeriod: known.billingPeriod,
            dataKeys: known.dataKeys,
            ...(known.deliveredAt ? { deliveredAt: known.deliveredAt } : {}),
          };
      }
      const parsed = layout.parseManifest(object.key, await readSmall(source, object.key, MAX_MANIFEST_BYTES));
      // a manifest the import refuses (not FOCUS) is read again next time, so that its reason stays in each run
      if (stored && !parsed.refusal)
        await this.manifests.record(stored.tenantId, { connectionId: stored.connectionId, key: object.key, etag: object.etag, ...parsed });
      return parsed;
    };
  }
}
