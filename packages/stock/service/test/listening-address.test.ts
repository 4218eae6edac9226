import { connectOutcome, listeningAddressCases } from '@platform/test-kit';
import { expect } from 'chai';
import { startProcess, type ServiceProcess } from './process-support';

/**
 * Where the process listens, seen from outside: 127.0.0.2 is this machine too
 * (all of 127.0.0.0/8 is loopback on Linux), but a socket bound to 127.0.0.1
 * alone does not answer there, while one bound to every interface does.
 */
describe('where the service listens', function () {
  this.timeout(60_000);
  let service: ServiceProcess | undefined;
  afterEach(async () => {
    await service?.stop('SIGINT');
    service = undefined;
  });

  async function started(env: Record<string, string | undefined>) {
    service = startProcess({ DATABASE_URL: 'memory:', AUTH_ISSUER: undefined, ...env });
    const line = await service.listening();
    return { line, port: await service.port() };
  }

  it('with tokens off and no HOST: on 127.0.0.1 only, and the start line says so', async () => {
    const { line, port } = await started({});
    expect(line.message).to.equal(
      `stock service listening on http://127.0.0.1:${port} (node ${process.version}); docs at http://127.0.0.1:${port}/swagger; tokens off: listening on 127.0.0.1 only (set HOST to listen elsewhere)`,
    );
    expect(line).to.include({
      url: `http://127.0.0.1:${port}`,
      node: process.version,
      access: 'tokens off: listening on 127.0.0.1 only (set HOST to listen elsewhere)',
    });
    expect(await connectOutcome('127.0.0.1', port)).to.equal('connected');
    expect(await connectOutcome('127.0.0.2', port)).to.equal('ECONNREFUSED');
    expect(await connectOutcome('::1', port)).not.to.equal('connected');
  });

  listeningAddressCases(started);
});
