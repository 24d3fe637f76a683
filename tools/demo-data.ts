/**
 * The demo set `npm start` loads into the `default` tenant the first time, through the public API
 * as a user would: currencies, provider metadata, three providers' GPD files (generated, uploaded
 * to their pre-signed URLs, enriched), a visibility group, a report model and a budget.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateGpd } from './gpd/generate';
import { PROFILES } from './gpd/gpd-content';

interface Endpoints {
  authzUrl: string;
  costassetUrl: string;
  token: string;
}

const CATEGORY_BY_KEYWORD: [RegExp, string][] = [
  [/EC2|Compute|virtualMachines|Instance/i, 'Compute'],
  [/S3|Storage|Bucket/i, 'Storage'],
  [/RDS|Sql/i, 'Database'],
  [/Lambda/i, 'Serverless'],
];

function recentPeriods(count: number): string[] {
  const now = new Date();
  return Array.from({ length: count }, (_, i) => {
    const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (count - i), 1));
    return `${date.getUTCFullYear()}${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
  });
}

async function call(url: string, token: string, method: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', 'corelite-token': token },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${new URL(url).pathname} answered ${res.status}: ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

async function waitForJob(api: Endpoints, jobId: string): Promise<string> {
  for (let i = 0; i < 240; i++) {
    const job = await call(`${api.costassetUrl}/api/costasset/v1/jobs/${jobId}`, api.token, 'GET');
    if (['succeeded', 'completed_with_errors', 'failed', 'terminated'].includes(String(job.status))) return String(job.status);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return 'timeout';
}

export async function loadDemoData(api: Endpoints, log: (line: string) => void): Promise<void> {
  const existing = await call(`${api.costassetUrl}/api/costasset/v1/costLineItems?limit=1`, api.token, 'GET');
  if ((existing.items as unknown[]).length > 0) return log('demo data: already loaded');

  const config = (key: string, value: unknown) =>
    call(`${api.authzUrl}/core/configuration/v1/configvalues`, api.token, 'PUT', { configurationkey: key, configurationvalue: value });
  await config('INSTANCE_CURRENCIES', ['USD', 'EUR']);
  await config('DEFAULT_CURRENCY', 'USD');
  await config('CURRENCY_EXCHANGE_RATES', { EUR: 1.08 });
  await config('SUPPORTED_CD_PROVIDERS', Object.keys(PROFILES));

  const periods = recentPeriods(3);
  const dir = mkdtempSync(join(tmpdir(), 'corelite-demo-'));
  try {
    for (const profile of Object.values(PROFILES)) {
      const meta = `${api.costassetUrl}/api/costasset/v1/providermetadata`;
      const categories = profile.resourceTypes.map(({ type }) => ({
        providerName: profile.providerName,
        assetType: type,
        serviceCategory: CATEGORY_BY_KEYWORD.find(([pattern]) => pattern.test(type))?.[1] ?? 'Other',
      }));
      await call(`${meta}/service_categories?providerName=${profile.providerName}`, api.token, 'POST', categories);
      const locations = profile.regions.map((region) => ({
        providerName: profile.providerName,
        providerRegionCode: region,
        region,
        location: region,
        country: 'n/a',
      }));
      await call(`${meta}/locations?providerName=${profile.providerName}`, api.token, 'POST', locations);

      const file = join(dir, `${profile.providerName}.zip`);
      await generateGpd({ rows: 1500, provider: profile.providerName, accounts: 2, periods, out: file });
      const submitted = await call(
        `${api.costassetUrl}/api/costasset/v1/gpd?providername=${profile.providerName}&fileName=demo.zip`,
        api.token,
        'POST',
      );
      const put = await fetch(String(submitted.uploadUrl), { method: 'PUT', body: readFileSync(file) });
      if (!put.ok) throw new Error(`uploading the ${profile.providerName} demo file answered ${put.status}`);
      const started = await call(`${api.costassetUrl}/api/costasset/v1/gpd/enrich`, api.token, 'POST', {
        GPDUploadRefId: [submitted.GPDUploadRefId],
        provider: [profile.providerName],
        retry: 'false',
      });
      const jobId = (started.jobs as { jobId: string }[])[0].jobId;
      log(`demo data: ${profile.providerName} enrichment ${await waitForJob(api, jobId)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  await call(`${api.costassetUrl}/api/costasset/v1/dynamicResourceGroups`, api.token, 'POST', {
    _id: 'aws-only',
    type: 'visibility',
    expr: 'providerName == "aws"',
    context: { teams: [] },
  });
  await call(`${api.costassetUrl}/api/costasset/v1/reportModels/cost-by-provider?templateId=cost-by-provider`, api.token, 'POST', {
    append: false,
    type: 'v1',
    vtags: [],
    expr: 'period == ${period}',
  });
  await call(`${api.costassetUrl}/api/costasset/v1/budgetController/budgets`, api.token, 'POST', {
    name: 'AWS monthly',
    amount: 50_000,
    currency: 'USD',
    scope: { expr: 'providerName == "aws"' },
    startPeriod: periods[0],
    endPeriod: periods[periods.length - 1],
    thresholds: [50, 80, 100],
  });
  log(
    `demo data: loaded (periods ${periods.join(', ')}); try the report ` +
      `model "cost-by-provider" with templateParams {"period":"${periods[2]}"}`,
  );
}
