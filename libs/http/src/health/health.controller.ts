import { Controller, Get, HttpCode, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ProblemException, Public, READINESS_PROBES, ReadinessProbe } from '@lib/core';
import { AdmissionControl } from '../traffic/admission';
import { AlwaysServed } from '../traffic/always-served';

const PROBE_TIMEOUT_MS = 2000;

async function probe(readiness: ReadinessProbe): Promise<'up' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), PROBE_TIMEOUT_MS);
  });
  try {
    await Promise.race([readiness.check(), timeout]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `/health/live`: the process runs (a failure means restart it). `/health/ready`: this instance
 * can take traffic now: every dependency answers and it is not at its bound of work in flight (a
 * failure means send traffic elsewhere for now; it recovers by itself). Both are always served,
 * whatever the load.
 */
@ApiTags('health')
@Public()
@AlwaysServed()
@Controller('health')
export class HealthController {
  constructor(
    @Inject(READINESS_PROBES) private readonly probes: ReadinessProbe[],
    private readonly admission: AdmissionControl,
  ) {}

  @Get('live')
  @HttpCode(200)
  @ApiOperation({ summary: 'The process is alive' })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    summary: 'This instance can take traffic now: every dependency answers and it is not saturated; 503 problem+json naming what is not',
    description:
      '`admission` is down while every slot of work in flight (HTTP_MAX_IN_FLIGHT), ' +
      'or every slot of heavy work (HTTP_MAX_HEAVY_IN_FLIGHT), is taken.',
  })
  async ready(): Promise<{ status: 'ok'; checks: Record<string, 'up' | 'down'> }> {
    const dependencies = await Promise.all(this.probes.map(async (p) => [p.name, await probe(p)] as const));
    const results = [...dependencies, ['admission', this.admission.saturated() ? 'down' : 'up'] as const];
    const checks = Object.fromEntries(results);
    const down = results.filter(([, state]) => state === 'down').map(([name]) => name);
    if (down.length > 0) {
      throw new ProblemException(503, 'NOT_READY', `Unavailable: ${down.join(', ')}`, undefined, { checks });
    }
    return { status: 'ok', checks };
  }
}
