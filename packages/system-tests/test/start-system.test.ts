import { createScratchVhost, eventually, freePort, type ScratchVhost, startServiceProcess } from '@platform/test-kit';
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type CurlAnswer, docShellBlock, jsonAnswers } from './support';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const START_SYSTEM = join(ROOT, 'tools', 'system', 'src', 'start-system.ts');

describe('pnpm start:system', function () {
  this.timeout(180_000);
  let vhost: ScratchVhost;
  let data: string;
  before(async function () {
    vhost = await createScratchVhost(this);
    data = mkdtempSync(join(tmpdir(), 'system-'));
  });
  after(async () => {
    await vhost?.drop();
    rmSync(data, { recursive: true, force: true });
  });

  /** What each service said of its stop, in the order start:system showed it. */
  const stopLines = (stdout: readonly string[]) =>
    stdout.flatMap((line) => {
      const [, name, json] = /^(\w+)\s+│ (\{.*)$/.exec(line) ?? [];
      const message = json && (JSON.parse(json) as { message: string }).message;
      return message === 'stopping' || message === 'stopped' ? [`${name} ${message}`] : [];
    });

  it('starts the four services, serves the README walkthrough, and stops them one at a time on Ctrl-C', async () => {
    const ports = {
      GATEWAY_PORT: await freePort(),
      STOCK_PORT: await freePort(),
      SALES_PORT: await freePort(),
      IDENTITY_PORT: await freePort(),
      GATEWAY_METRICS_PORT: await freePort(),
    };
    const portSettings = Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)]));
    const settings = { ...portSettings, AMQP_URL: vhost.url, DATA_DIR: data };
    const system = startServiceProcess(START_SYSTEM, settings, { detached: true });
    try {
      await eventually(
        'the system to be up',
        90_000,
        async () =>
          system.stdout.some((line) => line.startsWith('The system is up')) ||
          (system.child.exitCode !== null ? Promise.reject(new Error(system.stderr.join('\n'))) : false),
      );
      const gateway = `http://localhost:${ports.GATEWAY_PORT}`;
      expect(system.stdout.join('\n')).to.include(`Everything goes through the gateway: ${gateway}`);
      for (const service of ['identity', 'stock', 'sales', 'gateway'])
        expect(
          system.stdout.some((line) => line.startsWith(`${service.padEnd(8)} │ {`)),
          service,
        ).to.equal(true);
      const clients = join(data, 'identity-clients.json');
      expect(statSync(clients).mode & 0o777).to.equal(0o600);

      const script = docShellBlock('README.md', 'The whole system in one command')
        .replaceAll('http://localhost:8000', gateway)
        .replaceAll('data/identity-clients.json', clients);
      const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { timeout: 60_000 });
      const answers = jsonAnswers<CurlAnswer>(stdout);
      expect(
        answers.map((answer) => answer.status ?? `${answer.quantityInStock}/${answer.reservedQuantity}`),
      ).to.deep.equal(['reserved', 'paid', '1/0', 401]);
      expect(answers[0]).to.include({ buyer: 'demo' });

      // A terminal's Ctrl-C: SIGINT to the whole foreground process group.
      process.kill(-system.child.pid!, 'SIGINT');
      expect(await system.exited).to.equal(0);
      const lastStop = async () => stopLines(system.stdout).includes('identity stopped');
      await eventually('the last service to say it stopped', 5_000, lastStop);
      const order = ['gateway', 'sales', 'stock', 'identity'];
      expect(stopLines(system.stdout)).to.deep.equal(order.flatMap((name) => [`${name} stopping`, `${name} stopped`]));
      for (const port of Object.values(ports)) {
        const refused = await fetch(`http://127.0.0.1:${port}/health/live`).then(
          () => false,
          () => true,
        );
        expect(refused, `port ${port} closed`).to.equal(true);
      }
    } finally {
      // SIGTERM: start:system stops its services, which run in groups of their own, before it exits.
      await system.stop('SIGTERM');
    }
  });

  it('says in one line that RabbitMQ is not reachable, and how to start it, and exits 1', async () => {
    const system = startServiceProcess(START_SYSTEM, { AMQP_URL: 'amqp://guest:guest@127.0.0.1:1', DATA_DIR: data });
    expect(await system.exited).to.equal(1);
    expect(system.stderr.filter(Boolean)).to.have.length(1);
    expect(system.stderr[0]).to.match(
      /^start:system: RabbitMQ is not reachable at amqp:\/\/guest:\*\*\*@127\.0\.0\.1:1 .*rabbitmq-server -detached/,
    );
  });
});
