import { createScratchVhost, eventually, type ScratchVhost, startServiceProcess } from '@platform/test-kit';
import { expect } from 'chai';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CurlAnswer, jsonAnswers, runReadmeWalkthrough, START_SYSTEM, startWholeSystem } from './support';

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

  it('starts the five services, serves the README walkthrough, and stops them one at a time on Ctrl-C', async () => {
    const { process: system, ports, gateway } = await startWholeSystem({ AMQP_URL: vhost.url, DATA_DIR: data });
    try {
      expect(system.stdout.join('\n')).to.include(`Everything goes through the gateway: ${gateway}`);
      for (const service of ['identity', 'stock', 'payments', 'sales', 'gateway'])
        expect(
          system.stdout.some((line) => line.startsWith(`${service.padEnd(8)} │ {`)),
          service,
        ).to.equal(true);
      const clients = join(data, 'identity-clients.json');
      expect(statSync(clients).mode & 0o777).to.equal(0o600);
      // The first run's admin: its password in a file of the owner's, the back office's URL said.
      expect(statSync(join(data, 'identity-admin-password.txt')).mode & 0o777).to.equal(0o600);
      expect(statSync(join(data, 'identity-users.json')).mode & 0o777).to.equal(0o600);
      expect(system.stdout.join('\n')).to.match(
        /the back office: +http:\/\/localhost:\d+\/admin\/ +\(sign in as admin; its password, made now, is in .*identity-admin-password\.txt/,
      );
      // Built by start:system when its build was missing or stale: the gateway serves it, under its policy.
      const admin = await fetch(`${gateway}/admin/`);
      expect(admin.status, await admin.clone().text()).to.equal(200);
      expect(admin.headers.get('content-type')).to.match(/^text\/html/);
      expect(admin.headers.get('content-security-policy')).to.include("script-src 'self'");
      expect(await admin.text()).to.match(
        /<script type="module" crossorigin src="\/admin\/assets\/index-[\w-]+\.js"><\/script>/,
      );

      const answers = jsonAnswers<CurlAnswer>(
        await runReadmeWalkthrough(gateway, data, { payments: `http://localhost:${ports.PAYMENTS_PORT}` }),
      );
      // Stock's answers as on hand/committed/damaged/available; a shipment and a return as their lines.
      const summary = (answer: CurlAnswer) =>
        answer.status ??
        (answer.lines
          ? answer.lines
              .map((line) => `${line.quantity}@${line.locationId}${line.disposition ? ` ${line.disposition}` : ''}`)
              .join()
          : `${answer.quantityInStock}/${answer.committedQuantity}/${answer.damagedQuantity}/${answer.availableQuantity}`);
      expect(answers.map(summary)).to.deep.equal(['reserved', 'paid', '3/2/0/1', '2@1', '1@1 damaged', '2/0/1/1', 401]);
      expect(answers[0]).to.include({ buyer: 'demo' });

      // A terminal's Ctrl-C: SIGINT to the whole foreground process group.
      process.kill(-system.child.pid!, 'SIGINT');
      expect(await system.exited).to.equal(0);
      const lastStop = async () => stopLines(system.stdout).includes('identity stopped');
      await eventually('the last service to say it stopped', 5_000, lastStop);
      const order = ['gateway', 'sales', 'payments', 'stock', 'identity'];
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
