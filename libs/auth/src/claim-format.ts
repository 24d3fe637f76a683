/**
 * The characters a token's identity claims may hold. The tenant id becomes part of object-store
 * keys (`tenants/<tid>/…`) and of cache and NATS keys, so it is the strictest: no `.`, `/`, `:`
 * or `*`. Subjects and IdP ids also take the `.`, `@` and `+` of e-mail-like names and the `_`
 * and `-` of base64url ones, but never start with a dot.
 */
export const TENANT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const SUBJECT_PATTERN = /^[A-Za-z0-9_@+-][A-Za-z0-9._@+-]{0,255}$/;
export const IDP_ID_PATTERN = SUBJECT_PATTERN;

export const CLAIM_FORMATS = {
  tid: { pattern: TENANT_ID_PATTERN, rule: 'letters, digits, "_" and "-", starting with a letter or digit, at most 64 characters' },
  sub: { pattern: SUBJECT_PATTERN, rule: 'letters, digits and "._@+-", not starting with ".", at most 256 characters' },
  idp: { pattern: IDP_ID_PATTERN, rule: 'letters, digits and "._@+-", not starting with ".", at most 256 characters' },
} as const;

export type IdentityClaim = keyof typeof CLAIM_FORMATS;

/** The first of `tid`, `sub`, `idp` whose value is not a string of its safe character set. */
export function unsafeIdentityClaim(claims: Record<IdentityClaim, unknown>): IdentityClaim | undefined {
  return (Object.keys(CLAIM_FORMATS) as IdentityClaim[]).find((claim) => {
    const value = claims[claim];
    return typeof value !== 'string' || !CLAIM_FORMATS[claim].pattern.test(value);
  });
}
