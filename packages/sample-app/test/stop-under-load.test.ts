import { callDirectlyThroughStop } from '@platform/test-kit';
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

const MAIN = join(import.meta.dirname, '../src/main.ts');

describe('the sample app stopping under load', function () {
  this.timeout(60_000);

  it('cuts no request of 32 keep-alive clients through a SIGTERM: each is answered, or refused a new connection once it stops accepting', async () => {
    const { HOST: _unset, ...env } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
      env: { ...env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += String(chunk)));
      while (!/listening on http:\/\/127\.0\.0\.1:\d+/.test(output)) {
        if (child.exitCode !== null) throw new Error(`the sample app exited ${child.exitCode}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)![1]);
      const exited = once(child, 'exit');
      const { outcomes, stopped } = await callDirectlyThroughStop({
        port,
        path: '/weatherforecast',
        stopAfter: 1000,
        stop: () => child.kill('SIGTERM'),
      });
      expect(stopped, 'SIGTERM was sent mid-load').to.equal(true);
      const { 'status 200': ok = 0, ECONNREFUSED: refused = 0, ...failures } = outcomes;
      expect(failures, 'every request was answered 200 or refused a new connection').to.deep.equal({});
      expect(refused, 'each client ended refused').to.equal(32);
      expect(ok).to.be.greaterThan(1000);
      expect(await exited).to.deep.equal([0, null]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
