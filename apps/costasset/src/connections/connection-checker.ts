import { Injectable } from '@nestjs/common';
import { transientSource } from '../jobs/faults';
import { ConnectionSources } from './connection-sources';
import type { ConnectionTestResponse } from './dto/connection.dto';
import { awsDataExports } from './layouts/aws-data-exports';
import { azureExports } from './layouts/azure-exports';
import { LAYOUTS } from './layouts/layouts';
import type { ListedObject } from './sources/bucket-source';
import type { ConnectionCredentials } from './sources/open-source';
import type { Connection, ConnectionLayout } from './schemas/connection.schema';
import { formatOfName } from '../uploads/upload-keys';

/** The layout a listing looks like: manifests of one of the clouds, else plain FOCUS files. */
export function detectLayout(objects: ListedObject[]): ConnectionLayout | null {
  if (objects.some((object) => awsDataExports.isManifest(object.key))) return 'aws-data-exports';
  if (objects.some((object) => azureExports.isManifest(object.key))) return 'azure-exports';
  if (objects.some((object) => formatOfName(object.key))) return 'focus-files';
  return null;
}

/** What a person needs to hear of a fault reaching the store. */
function describe(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  return code && !message?.includes(code) ? `${code}: ${message}` : (message ?? String(error));
}

/**
 * Tests a connection as a sync would use it: the listing of the prefix (permission, bucket), the
 * layout the objects look like, and what the chosen layout would import. The first problem is
 * spelled out; nothing is imported.
 */
@Injectable()
export class ConnectionChecker {
  constructor(private readonly sources: ConnectionSources) {}

  async check(
    connection: Pick<Connection, 'type' | 'source' | 'layout'>,
    credentials: ConnectionCredentials,
  ): Promise<ConnectionTestResponse> {
    const checkedAt = new Date().toISOString();
    const failed = (location: string, problem: string, objects = 0): ConnectionTestResponse => ({
      ok: false,
      checkedAt,
      location,
      objects,
      layoutDetected: null,
      billingPeriods: [],
      importable: 0,
      problem,
      rejected: [],
    });
    let location =
      connection.type === 's3' ? `s3://${connection.source.bucket}` : `${connection.source.accountUrl}/${connection.source.container}`;
    let objects: ListedObject[];
    try {
      const source = await this.sources.open(connection, credentials);
      location = source.location;
      objects = await this.sources.list(source, connection.source.prefix);
      const detected = detectLayout(objects);
      const where = connection.source.prefix ? `under ${connection.source.prefix}` : 'in the bucket';
      if (objects.length === 0) return failed(location, `the listing works, but no object is ${where}: check the prefix`);
      const layout = LAYOUTS[connection.layout];
      const plan = await layout.plan(objects, this.sources.manifestReader(source, layout));
      const rejected = plan.notes.filter((note) => note.outcome === 'rejected');
      const base = {
        checkedAt,
        location,
        objects: objects.length,
        layoutDetected: detected,
        billingPeriods: [...new Set(plan.groups.map((group) => group.billingPeriod ?? group.group))].sort(),
        importable: plan.groups.length,
        rejected: rejected.slice(0, 20).map(({ object, reason }) => ({
          key: object.key,
          etag: object.etag,
          sizeBytes: object.size,
          outcome: 'rejected' as const,
          reason,
        })),
      };
      if (plan.groups.length > 0) return { ok: true, ...base };
      const hint = detected && detected !== connection.layout ? `; the objects look like the ${detected} layout` : '';
      const first = rejected[0] ? `; first rejected: ${rejected[0].object.key}: ${rejected[0].reason}` : '';
      return { ok: false, ...base, problem: `nothing ${where} can be imported with the ${connection.layout} layout${hint}${first}` };
    } catch (error) {
      return failed(location, transientSource(error) ? `cannot reach ${location}: ${describe(error)}` : describe(error));
    }
  }
}
