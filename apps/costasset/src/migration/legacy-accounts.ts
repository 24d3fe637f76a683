/**
 * A billing account as the legacy service lists it (`GET {legacyURL}/api/v1/accounts`, answering
 * either an array or `{ "accounts": [...] }`):
 * `{ id, name, provider, currency?, status?, parentId? }`, strings; `currency` ISO 4217,
 * `status` `active` or `inactive`. Other fields are ignored.
 */
export interface LegacyAccount {
  id: string;
  name: string;
  provider: string;
  currency?: string;
  status?: 'active' | 'inactive';
  parentId?: string;
}

export type CheckedAccount = { ok: true; account: LegacyAccount } | { ok: false; accountId: string; reason: string };

export const MAX_LEGACY_ACCOUNTS = 100_000;
const ID = /^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,127}$/;

const isText = (value: unknown, max: number): value is string => typeof value === 'string' && value.trim() !== '' && value.length <= max;

/** The account list of a legacy response, or why the response itself is unusable. */
export function accountList(body: unknown): unknown[] {
  const list = Array.isArray(body) ? body : body && typeof body === 'object' ? (body as { accounts?: unknown }).accounts : undefined;
  if (!Array.isArray(list)) throw new Error('the legacy response is neither an array nor { "accounts": [...] }');
  if (list.length > MAX_LEGACY_ACCOUNTS) throw new Error(`the legacy response lists more than ${MAX_LEGACY_ACCOUNTS} accounts`);
  return list;
}

export function checkAccount(record: unknown, index: number): CheckedAccount {
  if (!record || typeof record !== 'object' || Array.isArray(record))
    return { ok: false, accountId: `#${index}`, reason: 'the record is not an object' };
  const raw = record as Record<string, unknown>;
  const accountId = typeof raw.id === 'string' && raw.id.length <= 128 ? raw.id : typeof raw.id === 'number' ? String(raw.id) : `#${index}`;
  const problems: string[] = [];
  if (typeof raw.id !== 'string' || !ID.test(raw.id)) problems.push('id must be a string of 1-128 letters, digits or ._:/@-');
  if (!isText(raw.name, 256)) problems.push('name must be a non-empty string of at most 256 characters');
  if (!isText(raw.provider, 64)) problems.push('provider must be a non-empty string of at most 64 characters');
  if (raw.currency !== undefined && (typeof raw.currency !== 'string' || !/^[A-Z]{3}$/.test(raw.currency)))
    problems.push('currency must be an ISO 4217 code');
  if (raw.status !== undefined && raw.status !== 'active' && raw.status !== 'inactive') problems.push('status must be active or inactive');
  if (raw.parentId !== undefined && (typeof raw.parentId !== 'string' || !ID.test(raw.parentId)))
    problems.push('parentId must be an account id');
  if (problems.length) return { ok: false, accountId, reason: problems.join('; ') };
  const account: LegacyAccount = { id: raw.id as string, name: (raw.name as string).trim(), provider: (raw.provider as string).trim() };
  if (raw.currency !== undefined) account.currency = raw.currency as string;
  if (raw.status !== undefined) account.status = raw.status as LegacyAccount['status'];
  if (raw.parentId !== undefined) account.parentId = raw.parentId as string;
  return { ok: true, account };
}

/** Every record checked; a repeated id fails after its first occurrence. */
export function checkAccounts(records: unknown[]): CheckedAccount[] {
  const seen = new Set<string>();
  return records.map((record, index) => {
    const checked = checkAccount(record, index);
    if (!checked.ok) return checked;
    const key = `${checked.account.provider}\u0000${checked.account.id}`;
    if (seen.has(key)) return { ok: false, accountId: checked.account.id, reason: 'duplicate id for this provider in the legacy response' };
    seen.add(key);
    return checked;
  });
}
