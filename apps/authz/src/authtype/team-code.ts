import { randomBytes } from 'node:crypto';

export const TEAM_CODE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
export const MAX_CODE_LENGTH = 64;

/**
 * Team code of a hybrid configuration's admin team when none is given:
 * `ADMIN-<slug of the name>-<6 random hex>`, e.g. `ADMIN-CLOUD-ADMINS-3F9A1C`.
 */
export function generateTeamCode(name: string, random: () => string = () => randomBytes(3).toString('hex')): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '')
    .toUpperCase();
  return `ADMIN-${slug || 'CONFIG'}-${random().toUpperCase()}`;
}
