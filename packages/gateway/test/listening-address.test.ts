import { connectOutcome, listeningAddressCases, type ServiceProcess, startServiceProcess } from '@platform/test-kit';
import { expect } from 'chai';
import { join } from 'node:path';

const MAIN = join(import.meta.dirname, '..', 'src', 'main.ts');

/**
 * Where the gateway listens, seen from outside: 127.0.0.2 is this machine too
 * (all of 127.0.0.0/8 is loopback on Linux), but a socket bound to 127.0.0.1
 * alone does not answer there, while one bound to every interface does.
 */
describe('where the gateway listens', function () {
  this.timeout(60_000);
  let gateway: ServiceProcess | undefined;
  afterEach(async () => {
    await gateway?.stop('SIGINT');
    gateway = undefined;
  });

  async function started(env: Record<string, string | undefined>) {
    // No upstream is asked: a check a minute, and none is due before the test ends.
    gateway = startServiceProcess(MAIN, {
      HOST: undefined,
      AUTH_ISSUER: undefined,
      METRICS_PORT: '0',
      UPSTREAM_CHECK_MS: '60000',
      ...env,
    });
    const line = await gateway.listening();
    return { line, port: await gateway.port() };
  }

  it('with tokens off and no HOST: on 127.0.0.1 only, and the start line says so', async () => {
    const { line, port } = await started({});
    const note = 'tokens off: listening on 127.0.0.1 only (set HOST to listen elsewhere)';
    expect(String(line.message)).to.match(
      new RegExp(
        `^gateway listening on http://127\\.0\\.0\\.1:${port} \\(node ${process.version.replace(/\./g, '\\.')}\\); docs at http://127\\.0\\.0\\.1:${port}/swagger; metrics at http://127\\.0\\.0\\.1:\\d+/metrics; ${note.replace(/[()]/g, '\\$&')}$`,
      ),
    );
    expect(line).to.include({ url: `http://127.0.0.1:${port}`, access: note });
    expect(await connectOutcome('127.0.0.1', port)).to.equal('connected');
    expect(await connectOutcome('127.0.0.2', port)).to.equal('ECONNREFUSED');
    expect(await connectOutcome('::1', port)).not.to.equal('connected');
  });

  listeningAddressCases(started);
});
