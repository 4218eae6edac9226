import { callBehindReadinessThroughStop, expectServedThroughStop } from '@platform/test-kit';
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startProcess } from './process-support';

describe('stopping under load', function () {
  this.timeout(60_000);

  it('fails no request of clients on keep-alive connections when SIGTERM arrives, with the default settings', async () => {
    const service = startProcess({ DATABASE_URL: 'memory:' });
    const port = await service.port();
    const { sent, failures } = await callBehindReadinessThroughStop({
      port,
      path: '/api/products?limit=5',
      stopAfter: 200,
      stop: () => service.child.kill('SIGTERM'),
    });
    expect(sent).to.be.greaterThan(100);
    expect(failures).to.deep.equal([]);
    expect(await service.exited).to.equal(0);
  });

  it('cuts no request of 32 keep-alive clients that call it directly through a SIGTERM: each is answered, or refused a new connection once the server stops accepting', async () => {
    const service = startProcess({ DATABASE_URL: 'memory:' });
    const port = await service.port();
    await expectServedThroughStop({
      port,
      path: '/api/products?limit=5',
      stopAfter: 1000,
      stop: () => service.child.kill('SIGTERM'),
    });
    expect(await service.exited).to.equal(0);
  });

  it('exits 0 on Ctrl-C under pnpm, without pnpm reporting a failure', async () => {
    const root = join(import.meta.dirname, '..', '..', '..', '..');
    // A terminal's Ctrl-C signals the whole foreground process group: pnpm and the service.
    const pnpm = spawn('pnpm', ['start'], {
      cwd: root,
      env: { ...process.env, PORT: '0', DATABASE_URL: 'memory:' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    pnpm.stdout.on('data', (chunk: Buffer) => (output += String(chunk)));
    pnpm.stderr.on('data', (chunk: Buffer) => (output += String(chunk)));
    const exited = new Promise<number | null>((resolve) => pnpm.once('exit', (code) => resolve(code)));
    for (let i = 0; i < 2400 && !output.includes('listening on'); i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(output).to.contain('listening on');
    process.kill(-pnpm.pid!, 'SIGINT');
    expect(await exited).to.equal(0);
    expect(output).not.to.match(/ELIFECYCLE|Command failed/);
    expect(output).to.contain('"message":"stopped"');
  });
});
