import { ZipFile } from 'yazl';
import { COST_HEADER, csvLine } from '../../tools/gpd/gpd-content';

/** Entries of a zip: a file (path → content) or a folder (path ending with `/` → null). */
export type ZipEntries = Record<string, string | null>;

export async function zipOf(entries: ZipEntries): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, content] of Object.entries(entries)) {
    if (content === null) zip.addEmptyDirectory(name);
    else zip.addBuffer(Buffer.from(content), name);
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function metadataYml(providerName = 'aws', currency = 'USD'): string {
  return `providerName: ${providerName}\nproviderCode: ${providerName.toUpperCase()}\ncurrency: ${currency}\n`;
}

export interface CostRowSpec {
  start?: string;
  /** ChargePeriodEnd (default the end of the period's first day). */
  end?: string;
  account?: string;
  resourceType?: string;
  region?: string;
  billedCost?: string;
  currency?: string;
  tags?: string;
  service?: string;
}

/** A cost CSV with the header of the generator and one line per spec. */
export function costCsv(period: string, account: string, rows: CostRowSpec[]): string {
  const day = `${period.slice(0, 4)}-${period.slice(4, 6)}-01`;
  return (
    csvLine(COST_HEADER) +
    rows
      .map((row, index) =>
        csvLine([
          row.start ?? `${day}T00:00:00Z`,
          row.end ?? `${day}T23:59:59Z`,
          row.account ?? account,
          `Account ${account}`,
          `${account}-sub`,
          'Sub',
          `res-${index}`,
          `resource ${index}`,
          row.resourceType ?? 'AmazonEC2',
          row.region ?? 'us-east-1',
          row.service ?? 'Amazon Elastic Compute Cloud',
          'Usage',
          row.billedCost ?? '10.00',
          '',
          row.currency ?? 'USD',
          '1',
          'Hours',
          row.tags ?? '{"team:owner":"alpha","env":"prod"}',
        ]),
      )
      .join('')
  );
}

/** `count` valid rows alternating EC2/S3 and two regions, 10.00 each in `currency`. */
export function validRows(count: number, currency = 'USD'): CostRowSpec[] {
  return Array.from({ length: count }, (_, index) => ({
    resourceType: index % 2 === 0 ? 'AmazonEC2' : 'AmazonS3',
    region: index % 2 === 0 ? 'us-east-1' : 'eu-west-1',
    currency,
  }));
}

export function validGpd(
  options: { provider?: string; period?: string; account?: string; rows?: CostRowSpec[]; withAssets?: boolean } = {},
): Promise<Buffer> {
  const { provider = 'aws', period = '202410', account = '111111111111', rows = validRows(10), withAssets = true } = options;
  const entries: ZipEntries = {
    'provider_metadata.yml': metadataYml(provider),
    [`${period}/${account}/C_${account}_20241101T000000Z.csv`]: costCsv(period, account, rows),
  };
  if (withAssets) {
    entries[`${period}/${account}/${account}-sub/A_${account}-sub.csv`] =
      'ResourceId,ResourceName,ResourceType,RegionId,Tags\r\n' +
      'res-0,resource 0,AmazonEC2,us-east-1,"{""owner"":""x""}"\r\n' +
      'res-1,resource 1,AmazonS3,eu-west-1,\r\n';
    entries[`${period}/${account}/${account}-sub/U_${account}-sub.csv`] =
      `ResourceId,Timestamp,Metric,Value,Unit\r\nres-0,${period.slice(0, 4)}-${period.slice(4)}-02T00:00:00Z,cpu,0.5,ratio\r\n`;
  }
  return zipOf(entries);
}
