import { Controller, Get, HttpCode, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '@lib/auth/access';
import { ProblemException } from '../problem';
import { READINESS_PROBES, ReadinessProbe } from './readiness-probe';

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

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(@Inject(READINESS_PROBES) private readonly probes: ReadinessProbe[]) {}

  @Get('live')
  @HttpCode(200)
  @ApiOperation({ summary: 'The process is alive' })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Every dependency answers; 503 problem+json naming the ones that do not' })
  async ready(): Promise<{ status: 'ok'; checks: Record<string, 'up' | 'down'> }> {
    const results = await Promise.all(this.probes.map(async (p) => [p.name, await probe(p)] as const));
    const checks = Object.fromEntries(results);
    const down = results.filter(([, state]) => state === 'down').map(([name]) => name);
    if (down.length > 0) {
      throw new ProblemException(503, 'NOT_READY', `Unavailable: ${down.join(', ')}`, undefined, { checks });
    }
    return { status: 'ok', checks };
  }
}
