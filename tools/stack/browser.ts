import type { RequiredProgram } from './types';

/**
 * Debian's Chromium, for the web console's browser tests (driven by playwright-core; no browser is
 * ever downloaded). Installed with the stack's other packages by `npm test`.
 */
export const BROWSER_PROGRAMS: RequiredProgram[] = [{ program: 'chromium', aptPackage: 'chromium' }];
