import { connectOutcome, type ServiceProcess, startServiceProcess } from '@platform/test-kit';
import { expect } from 'chai';
import { join } from 'node:path';

const MAIN = join(import.meta.dirname, '..', 'src', 'main.ts');

describe('where the sales service listens', function () {
  this.timeout(60_000);
  let service: ServiceProcess | undefined;
  afterEach(async () => void (await service?.stop('SIGINT')));

  it('with tokens off and no HOST: on 127.0.0.1 only (127.0.0.2, this machine too, is refused), and the start line says so', async () => {
    service = startServiceProcess(MAIN, { DATABASE_URL: 'memory:', HOST: undefined, AUTH_ISSUER: undefined });
    const line = await service.listening();
    const port = await service.port();
    expect(line.message).to.equal(
      `sales service listening on http://127.0.0.1:${port} (node ${process.version}); docs at http://127.0.0.1:${port}/swagger; tokens off: listening on 127.0.0.1 only (set HOST to listen elsewhere)`,
    );
    expect(await connectOutcome('127.0.0.1', port)).to.equal('connected');
    expect(await connectOutcome('127.0.0.2', port)).to.equal('ECONNREFUSED');
  });
});
