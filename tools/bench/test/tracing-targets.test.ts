import { expect } from 'chai';
import { OTLP_SINK, TARGETS, tracingAt, withSink } from '../src/targets';

describe("the bench's traced targets", () => {
  it('turn tracing on with the standard variables, sampling the given share, to the sink put in at run time', () => {
    const env = withSink({ LOG_LEVEL: 'warn', ...tracingAt(0.1) }, 'http://127.0.0.1:4318');
    expect(env).to.deep.equal({
      LOG_LEVEL: 'warn',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    });
  });

  it('are measured against the same service with tracing off', () => {
    const traced = TARGETS.filter((t) => Object.values(t.env ?? {}).includes(OTLP_SINK));
    expect(traced.map((t) => [t.name, t.baseline])).to.deep.equal([
      ['service · memory, tracing on at 10 %', 'service · memory'],
      ['service · SQLite, tracing on at 10 %', 'service · SQLite'],
      ['service · PostgreSQL, tracing on at 10 %', 'service · PostgreSQL'],
    ]);
    for (const target of traced) {
      const baseline = TARGETS.find((t) => t.name === target.baseline)!;
      expect(baseline.env ?? {}, baseline.name).to.not.have.any.keys(Object.keys(target.env!));
    }
  });
});
