import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@lib/core';
import { AlwaysServed } from './always-served';
import { Metrics } from '@lib/metrics';

/**
 * Prometheus' scrape endpoint. Public (a scraper holds no corelite-token) and for that reason
 * never published by the gateway: it answers on the service's own address (`HOST`, loopback by
 * default) or, with `METRICS_PORT`, only on a listener of its own (`METRICS_HOST`).
 */
@ApiTags('metrics')
@Public()
@AlwaysServed()
@Controller()
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get('metrics')
  @ApiOperation({
    summary: "This instance's metrics in Prometheus' text format (requests, database, NATS, jobs, ingestion, caches, process)",
    description: "Served on the service's own address (or METRICS_PORT), never through the gateway; see docs/running.md, Metrics.",
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition format 0.0.4', schema: { type: 'string' } })
  async render(@Res() response: Response): Promise<void> {
    const text = await this.metrics.render();
    // written as is: Express's send() would reorder the content type's parameters
    response.status(200).setHeader('Content-Type', this.metrics.contentType);
    response.end(text);
  }
}
