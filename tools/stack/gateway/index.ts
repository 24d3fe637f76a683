export { checkGatewayConfig, GATEWAY_PROGRAMS, reachableHost, startGateway, stopGateway, sweepOrphanGateways } from './gateway';
export type { GatewayOptions, RunningGateway } from './gateway';
export { renderGatewayConfig, ROUTES_FILE, TRACING_FILE, traceSampledPercentOf, traceSamplingLine, upstreamBounds } from './gateway-config';
export type { GatewayUpstreams } from './gateway-config';
