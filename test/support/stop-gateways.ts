import { join } from 'node:path';
import { sweepOrphanGateways } from '../../tools/stack/gateway';
import { REPO_ROOT } from '../../tools/stack/settings';

/**
 * Jest's global teardown of the e2e project: stops the gateways that test files started and did
 * not stop (a test that closes its services by hand, or one that failed half-way).
 */
export default async function stopGateways(): Promise<void> {
  await sweepOrphanGateways(join(REPO_ROOT, '.stack', process.env.STACK_PROFILE || 'test', 'gateways'), process.pid);
}
