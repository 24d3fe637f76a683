import type { Readable } from 'node:stream';
import { AnonymousCredential, ContainerClient, RestError, StoragePipelineOptions, StorageSharedKeyCredential } from '@azure/storage-blob';
import { BucketSource, ListedObject, SourceRefusal, unquoted } from './bucket-source';

export interface AzureLocation {
  /** The account's blob endpoint: `https://<account>.blob.core.windows.net` (or an emulator's URL). */
  accountUrl: string;
  container: string;
}

/** A SAS token (of the container or the account), or the account's name and key. */
export interface AzureCredentials {
  sasToken?: string;
  accountName?: string;
  accountKey?: string;
}

/** Statuses by which Blob Storage says no (as opposed to being unreachable). */
const REFUSING_STATUSES = new Set([400, 401, 403, 404]);

/**
 * A Blob Storage container, through Microsoft's client. Its host is checked against the outbound
 * host rule when the source is opened (`openSource`), before each sync and test.
 */
export class AzureBlobSource implements BucketSource {
  readonly location: string;
  private readonly container: ContainerClient;

  constructor(where: AzureLocation, credentials: AzureCredentials) {
    const base = where.accountUrl.replace(/\/+$/, '');
    const url = new URL(`${base}/${encodeURIComponent(where.container)}`);
    const options: StoragePipelineOptions = { keepAliveOptions: { enable: true }, retryOptions: { maxTries: 2 } };
    if (credentials.sasToken) {
      url.search = credentials.sasToken.replace(/^\?/, '');
      this.container = new ContainerClient(url.toString(), new AnonymousCredential(), options);
    } else {
      const key = new StorageSharedKeyCredential(credentials.accountName ?? '', credentials.accountKey ?? '');
      this.container = new ContainerClient(url.toString(), key, options);
    }
    this.location = `${base}/${where.container}`;
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    try {
      for await (const blob of this.container.listBlobsFlat({ prefix })) {
        yield {
          key: blob.name,
          etag: unquoted(blob.properties.etag),
          size: blob.properties.contentLength ?? 0,
          lastModified: blob.properties.lastModified,
        };
      }
    } catch (error) {
      throw refusalOf(error);
    }
  }

  async read(key: string): Promise<Readable> {
    try {
      const response = await this.container.getBlobClient(key).download();
      return response.readableStreamBody as Readable;
    } catch (error) {
      throw refusalOf(error);
    }
  }
}

function refusalOf(error: unknown): unknown {
  if (error instanceof RestError && error.statusCode !== undefined && REFUSING_STATUSES.has(error.statusCode))
    return new SourceRefusal(`${error.code ?? error.statusCode}: ${error.message.split('\n')[0]}`);
  return error;
}
