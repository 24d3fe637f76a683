import { isForbiddenHost } from '../../outbound/host-policy';
import type { Connection } from '../schemas/connection.schema';
import { AzureBlobSource, AzureCredentials } from './azure-blob-source';
import { BucketSource, SourceRefusal } from './bucket-source';
import { awsEndpoint, S3Credentials, S3Source } from './s3-source';

export type ConnectionCredentials = Partial<S3Credentials> & AzureCredentials;

/** The host a connection reaches. */
export function hostOf(connection: Pick<Connection, 'type' | 'source'>): string {
  const { source } = connection;
  const url = connection.type === 's3' ? (source.endpoint ?? awsEndpoint(source.region ?? '')) : (source.accountUrl ?? '');
  return new URL(url).hostname;
}

/**
 * The source of a connection, after the outbound host rule: an endpoint on a private or loopback
 * address is refused unless the deployment allows it (CONNECTIONS_ALLOW_PRIVATE_HOSTS).
 */
export async function openSource(
  connection: Pick<Connection, 'type' | 'source'>,
  credentials: ConnectionCredentials,
  allowPrivateHosts: boolean,
): Promise<BucketSource> {
  const host = hostOf(connection);
  if (!allowPrivateHosts && (await isForbiddenHost(host)))
    throw new SourceRefusal(`${host.replace(/^\[|\]$/g, '')} is a private or loopback address, which connections may not reach here`);
  const { source } = connection;
  if (connection.type === 's3') {
    const keys = { accessKeyId: credentials.accessKeyId ?? '', secretAccessKey: credentials.secretAccessKey ?? '' };
    return new S3Source(
      { endpoint: source.endpoint, region: source.region ?? 'us-east-1', bucket: source.bucket ?? '' },
      keys,
      allowPrivateHosts,
    );
  }
  return new AzureBlobSource({ accountUrl: source.accountUrl ?? '', container: source.container ?? '' }, credentials);
}
