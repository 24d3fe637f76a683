import type { ImportRequester } from '../../gpd/import-requester';
export const EXTENSION_FLOW_JOB = 'extension-flow';

export interface FlowPayload {
  providerCode: string;
  /** Full key of the extension zip chosen when the flow started. */
  extensionKey: string;
  /** The raw upload (notify `Filename`) chosen when the flow started: a retry reads the same files. */
  rawFile?: string;
  /** Set by the consolidated ingestion (v2): enrich the GPD file once it is registered. */
  enrichAfter?: boolean;
  /** Who asked for the flow: it sees the GPD upload, and its enrichment runs within its visibility. */
  requester?: ImportRequester;
}

/** Name of the GPD zip a flow writes, under `tenants/<tenantId>/gpd/<jobId>/`. */
export const flowOutputName = (providerCode: string) => `${providerCode}-extension.zip`;
