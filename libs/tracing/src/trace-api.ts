import type * as OpenTelemetryApi from '@opentelemetry/api';

export type TraceApi = typeof OpenTelemetryApi;

/**
 * The OpenTelemetry API once tracing has started, else undefined: with tracing off nothing of
 * OpenTelemetry is loaded, and every helper of this library returns at once.
 */
let api: TraceApi | undefined;
let parentBased = true;

export function activeTraceApi(): TraceApi | undefined {
  return api;
}

/**
 * Called by `startTracing` once the SDK is registered (and by tests that register their own).
 * `parentBasedSampler`: whether the sampler follows the parent's decision (`parentbased_*`, the
 * default), so that the children of an unsampled span need not be started at all.
 */
export function useTraceApi(loaded: TraceApi | undefined, parentBasedSampler = true): void {
  api = loaded;
  parentBased = parentBasedSampler;
}

export function followsParentSampling(): boolean {
  return parentBased;
}

export function tracingActive(): boolean {
  return api !== undefined;
}
