import type { ImportRequester } from '../../uploads/import-requester';

export interface FlowPayload {
  providerCode: string;
  /** Full key of the extension zip chosen when the flow started. */
  extensionKey: string;
  /** The raw upload (notify `Filename`) chosen when the flow started: a retry reads the same files. */
  rawFile?: string;
  /** Set by the consolidated ingestion (v2): import the GPD file once it is registered (the name is stored in job records). */
  enrichAfter?: boolean;
  /** Who asked for the flow: it sees the GPD upload, and its enrichment runs within its visibility. */
  requester?: ImportRequester;
}

/** Name of the GPD zip a flow writes, under `tenants/<tenantId>/gpd/<jobId>/`. */
export const flowOutputName = (providerCode: string) => `${providerCode}-extension.zip`;
