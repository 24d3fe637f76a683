import * as path from 'node:path';
import type { StartPlan } from './plan';
import { SIGN_IN_HOURS } from './sign-in-link';

export const TOKEN_COMMAND = 'npm run -s token -- --sub admin --tenant default --idp idp-default';

/** What `npm start` prints once everything answers: one base URL and how to begin. */
export function banner(plan: StartPlan, logFiles: string[], root: string, demo?: string, signInLink?: string, tracesFile?: string): string {
  const base = plan.gatewayUrl;
  const logs = logFiles.map((file) => path.relative(root, file)).join(', ');
  return [
    '',
    `corelite is running at ${base}`,
    '',
    `  Console        ${base}/`,
    ...(signInLink
      ? [
          `  Sign-in link   the bootstrap System Admin, signed in (keep it private; ` +
            `its session ends at Ctrl-C, or after ${SIGN_IN_HOURS} hours):`,
          `                   ${signInLink}`,
        ]
      : []),
    `  API reference  ${base}/docs/authz   ${base}/docs/costasset`,
    `  Guides         ${base}/docs/   (start with docs/tutorial.md)`,
    '  Sign in        a token for the bootstrap System Admin of tenant "default":',
    `                   TOKEN=$(${TOKEN_COMMAND})`,
    `                   curl -H "corelite-token: $TOKEN" ${base}/core/authorization/v1/me`,
    ...(demo ? [`  Demo data      ${demo}`] : []),
    `  Logs           ${logs}${plan.verbose ? '' : '   (npm start -- --verbose shows them here)'}`,
    ...(plan.traces && tracesFile
      ? [`  Traces         ${path.relative(root, tracesFile)} (one span a line; OTLP/HTTP receiver at ${plan.traces.url})`]
      : []),
    `  Direct         authz ${plan.serviceUrls.authz}, costasset ${plan.serviceUrls.costasset} (without the gateway)`,
    '',
    'Ctrl-C stops the services and the gateway; `npm run stack -- down` stops the local stack.',
    '',
  ].join('\n');
}
