import { traceSampledPercentOf, traceSamplingLine } from './gateway-config';

describe('gateway: the sampling of the traces it starts', () => {
  it("follows the services' sampler", () => {
    expect(traceSampledPercentOf({})).toBe(100);
    expect(traceSampledPercentOf({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' })).toBe(100);
    expect(traceSampledPercentOf({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toBe(0);
    expect(traceSampledPercentOf({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' })).toBe(10);
    expect(traceSampledPercentOf({ OTEL_TRACES_SAMPLER: 'traceidratio' })).toBe(100);
  });

  it('marks that share of new traces sampled ("01"), the rest not ("00")', () => {
    expect(traceSamplingLine()).toBe('split_clients "$request_id" $corelite_trace_sampled { * 01; }');
    expect(traceSamplingLine(0)).toBe('split_clients "$request_id" $corelite_trace_sampled { * 00; }');
    expect(traceSamplingLine(10)).toBe('split_clients "$request_id" $corelite_trace_sampled { 10% 01; * 00; }');
    expect(traceSamplingLine(0.125)).toBe('split_clients "$request_id" $corelite_trace_sampled { 0.13% 01; * 00; }');
  });
});
