import { expect } from 'chai';
import { servicesEnv } from '../src/services-env';

describe("start:system's environment for the services", () => {
  it('passes OTEL_* with an OTLP endpoint, but for OTEL_SERVICE_NAME: each service keeps its own default name', () => {
    const env = servicesEnv({
      PATH: '/bin',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
      OTEL_SERVICE_NAME: 'everything',
    });
    expect(env).to.deep.equal({
      PATH: '/bin',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    });
  });

  it('passes no OTEL_* variable without an endpoint', () => {
    expect(
      servicesEnv({ PATH: '/bin', OTEL_TRACES_SAMPLER: 'always_on', OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }),
    ).to.deep.equal({ PATH: '/bin' });
  });
});
