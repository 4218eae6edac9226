import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { join } from 'node:path';

const MAIN = join(import.meta.dirname, '../src/main.ts');

describe('the sample app stopping under load', function () {
  this.timeout(60_000);

  it('cuts no request of 32 keep-alive clients through a SIGTERM: each is answered, or refused a new connection once it stops accepting', async () => {
    const { HOST: _unset, ...env } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN], { env: { ...env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += String(chunk)));
      while (!/listening on http:\/\/127\.0\.0\.1:\d+/.test(output)) {
        if (child.exitCode !== null) throw new Error(`the sample app exited ${child.exitCode}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)![1]);
      const exited = once(child, 'exit');
      const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
      /** What became of each request: its status, or the error's code (ECONNREFUSED: a new connection refused, nothing sent). */
      const get = () =>
        new Promise<string>((resolve) => {
          http
            .get({ host: '127.0.0.1', port, path: '/weatherforecast', agent }, (response) => response.resume().on('end', () => resolve(`status ${response.statusCode}`)))
            .on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
        });
      const outcomes = new Map<string, number>();
      let answered = 0;
      let signalled = false;
      // Each client sends until the app refuses it a connection (or 3000 requests, a bound); SIGTERM after 1000 answers, a count, not a time.
      const clients = Array.from({ length: 32 }, async () => {
        for (let i = 0; i < 3000; i++) {
          const outcome = await get();
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
          if (outcome === 'ECONNREFUSED') return;
          if (outcome === 'status 200' && !signalled && ++answered === 1000) {
            signalled = true;
            child.kill('SIGTERM');
          }
        }
      });
      await Promise.all(clients);
      agent.destroy();
      expect(signalled, 'SIGTERM was sent mid-load').to.equal(true);
      const { 'status 200': ok = 0, ECONNREFUSED: refused = 0, ...failures } = Object.fromEntries(outcomes);
      expect(failures, 'every request was answered 200 or refused a new connection').to.deep.equal({});
      expect(refused, 'each client ended refused').to.equal(32);
      expect(ok).to.be.greaterThan(1000);
      expect(await exited).to.deep.equal([0, null]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
