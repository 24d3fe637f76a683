/**
 * Writes valid GPD zips, streaming the rows (memory stays flat whatever --rows is):
 *   npm run gpd -- --rows 100000 --providers aws,azure --accounts 3 --periods 202409,202410 --out gpd.zip
 * One zip per provider (a GPD file belongs to one provider): with several providers the name gets
 * the provider as suffix (gpd-aws.zip, gpd-azure.zip). --rows is the cost rows of each zip, spread
 * evenly over accounts and periods; each account also gets one asset and one utilization file.
 * Azure accounts are resource paths (`/providers/Microsoft.Billing/billingAccounts/…`): folder names
 * encode account ids (docs/gpd-folder-names.md).
 */
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { ZipFile } from 'yazl';
import { encodeGpdName } from '../../apps/costasset/src/imports/read/gpd-names';
import { ASSET_HEADER, COST_HEADER, costRow, csvLine, PROFILES, ProviderProfile, UTILIZATION_HEADER, periodStart } from './gpd-content';

export interface GenerateOptions {
  rows: number;
  provider: string;
  accounts: number;
  periods: string[];
  out: string;
}

function* costLines(profile: ProviderProfile, period: string, account: string, count: number): Generator<string> {
  yield csvLine(COST_HEADER);
  for (let index = 0; index < count; index++) yield csvLine(costRow(profile, period, account, `${account}-sub`, index));
}

function* assetLines(profile: ProviderProfile, account: string): Generator<string> {
  yield csvLine(ASSET_HEADER);
  for (let index = 0; index < 50; index++) {
    const resource = profile.resourceTypes[index % profile.resourceTypes.length];
    yield csvLine([
      `${profile.providerName}-${account}-res-${index}`,
      `resource ${index}`,
      resource.type,
      profile.regions[index % profile.regions.length],
      JSON.stringify({ 'team:owner': `team-${index % 5}` }),
    ]);
  }
}

function* utilizationLines(profile: ProviderProfile, period: string, account: string): Generator<string> {
  yield csvLine(UTILIZATION_HEADER);
  for (let index = 0; index < 50; index++)
    yield csvLine([
      `${profile.providerName}-${account}-res-${index}`,
      periodStart(period, (index % 28) + 1),
      'cpu',
      (index % 100) / 100,
      'ratio',
    ]);
}

export async function generateGpd(options: GenerateOptions): Promise<void> {
  const profile = PROFILES[options.provider];
  if (!profile) throw new Error(`unknown provider ${options.provider}; known: ${Object.keys(PROFILES).join(', ')}`);
  const zip = new ZipFile();
  const output = createWriteStream(options.out);
  zip.outputStream.pipe(output);
  zip.addBuffer(
    Buffer.from(`providerName: ${profile.providerName}\nproviderCode: ${profile.providerCode}\ncurrency: ${profile.currency}\n`),
    'provider_metadata.yml',
  );
  const slots = options.periods.length * options.accounts;
  let slot = 0;
  for (const period of options.periods) {
    for (let a = 1; a <= options.accounts; a++) {
      const number = String(a).padStart(6, '0');
      const account =
        profile.providerCode === 'AZURE'
          ? `/providers/Microsoft.Billing/billingAccounts/${number}`
          : `${profile.providerCode.toLowerCase()}${number}`;
      const count = Math.floor(options.rows / slots) + (slot < options.rows % slots ? 1 : 0);
      slot++;
      const name = encodeGpdName(account);
      const sub = encodeGpdName(`${account}-sub`);
      const folder = `${period}/${name}`;
      zip.addReadStream(Readable.from(costLines(profile, period, account, count)), `${folder}/C_${name}_${period}01T000000Z.csv`);
      zip.addReadStream(Readable.from(assetLines(profile, account)), `${folder}/${sub}/A_${sub}.csv`);
      zip.addReadStream(Readable.from(utilizationLines(profile, period, account)), `${folder}/${sub}/U_${sub}.csv`);
    }
  }
  zip.end();
  await finished(output);
}

const USAGE = `usage: npm run gpd -- [--rows 1000] [--providers aws] [--accounts 1] [--periods 202410] [--out gpd.zip]
Writes a valid GPD file (docs/gpd-format.md) with generated FOCUS rows, one zip per provider.
  --rows       cost rows of each zip, spread over accounts and periods (default 1000)
  --providers  comma-separated, among ${Object.keys(PROFILES).join(', ')} (default aws)
  --accounts   billing accounts per period (default 1); each also gets an asset and a utilization file
  --periods    comma-separated YYYYMM periods (default 202410)
  --out        the zip to write, relative to where you run npm (default gpd.zip; with several
               providers the provider is appended: gpd-aws.zip, gpd-azure.zip)
Prints the path of each zip written.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      help: { type: 'boolean', short: 'h', default: false },
      rows: { type: 'string', default: '1000' },
      providers: { type: 'string', default: 'aws' },
      accounts: { type: 'string', default: '1' },
      periods: { type: 'string', default: '202410' },
      out: { type: 'string', default: 'gpd.zip' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const providers = (values.providers as string)
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const periods = (values.periods as string).split(',').map((period) => period.trim());
  if (periods.some((period) => !/^\d{4}(0[1-9]|1[0-2])$/.test(period))) throw new Error('--periods takes YYYYMM values');
  const rows = Number(values.rows);
  const accounts = Number(values.accounts);
  if (!Number.isInteger(rows) || rows < 0 || !Number.isInteger(accounts) || accounts < 1)
    throw new Error('--rows and --accounts take whole numbers');
  // npm runs scripts at the repository root; a relative --out means where the user typed the command
  const outBase = resolve(process.env.INIT_CWD ?? process.cwd(), values.out as string);
  for (const provider of providers) {
    const out = providers.length === 1 ? outBase : outBase.replace(/(\.zip)?$/, `-${provider}.zip`);
    await generateGpd({ rows, provider, accounts, periods, out });
    process.stdout.write(`${out}\n`);
  }
}

if (require.main === module) {
  main().catch((error: Error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  });
}
