import {
  concurrencyDrill,
  type DrillResult,
  killNineDrill,
  postgresRestartDrill,
  rabbitmqRestartDrill,
  rollingRestartDrill,
  SHORT,
  soakDrill,
} from '@tools/drills';
import { postgresRequired, rabbitmqRequired } from '@platform/test-kit';
import { expect } from 'chai';

/**
 * The drills of docs/operations.md, shortened: two stock and two sales
 * instances behind the gateway on one PostgreSQL and one RabbitMQ, each
 * process real, each fault real (SIGTERM, SIGKILL, a frozen broker link,
 * pg_ctlcluster, rabbitmqctl). `pnpm drills` runs them at full size and
 * writes the figures into the doc. Every drill stops what it started, even
 * when one of its checks or waits fails.
 */
describe('the drills, shortened', function () {
  this.timeout(600_000);
  before(function () {
    if (!postgresRequired || !rabbitmqRequired) {
      console.warn(
        '  ! the drills restart the machine’s PostgreSQL and RabbitMQ: they run in CI (or with REQUIRE_POSTGRES=1 REQUIRE_RABBITMQ=1) only.',
      );
      this.skip();
    }
  });

  const held = (result: DrillResult) => {
    expect(result.broken, `${result.drill}: ${JSON.stringify(result.figures)}`).to.deep.equal([]);
    expect(result.kept.length).to.be.greaterThan(0);
  };

  it('two of each behind the gateway: exact concurrency; both expiry sweepers and all four relays worked, no event published or handled twice', async () =>
    held(await concurrencyDrill(SHORT.concurrency)));
  it('a rolling restart of every service instance under load fails no request', async () =>
    held(await rollingRestartDrill(SHORT.rolling)));
  it('kill -9 of each process in turn, the relay mid-batch and the issuer with short-lived tokens: nothing acknowledged lost, every order final with one effect', async () =>
    held(await killNineDrill(SHORT.kill)));
  it('PostgreSQL restarted under load on stock and sales: every instance 503 then 200 by itself, no acknowledged write lost', async () =>
    held(await postgresRestartDrill(SHORT.postgres)));
  it('RabbitMQ restarted under load: no event lost, every backlog drains', async () =>
    held(await rabbitmqRestartDrill(SHORT.rabbit)));
  it('a one-minute soak with retention shortened: no request fails, the sweepers keep the outbox and the inbox within their retention, RSS slopes reported', async () =>
    held(await soakDrill(SHORT.soak)));
});
