/**
 * Folder and file names of a GPD zip carry billing-account and sub-account ids, and ids are
 * opaque: Azure's are resource paths (`/providers/Microsoft.Billing/billingAccounts/1234`), AWS's
 * ARNs hold `:` and `/`, others spaces or any Unicode. In a name, every character outside
 * `A–Z a–z 0–9 . _ @ + = -` (and a first character that is not a letter or digit) is written as
 * `%HH`, the bytes of its UTF-8 encoding in upper-case hex; enrichment decodes the names back.
 * Plain ids (`123456789012`, `acme-prod`) are written as they are.
 */
const SAFE = /[A-Za-z0-9._@+=-]/;
const LEADING = /[A-Za-z0-9]/;

const percent = (character: string) =>
  [...Buffer.from(character, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');

export function encodeGpdName(id: string): string {
  let encoded = '';
  for (const character of id) {
    const safe = encoded === '' ? LEADING.test(character) : SAFE.test(character);
    encoded += safe ? character : percent(character);
  }
  return encoded;
}

/** The id a name stands for; undefined when the name is not a valid encoding. */
export function decodeGpdName(name: string): string | undefined {
  try {
    return decodeURIComponent(name);
  } catch {
    return undefined;
  }
}
