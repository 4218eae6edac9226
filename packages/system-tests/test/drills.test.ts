import { concurrencyDrill, type DrillResult, killNineDrill, postgresRestartDrill, rabbitmqRestartDrill, rollingRestartDrill, SHORT, soakDrill } from '@tools/drills';
import { postgresRequired, rabbitmqRequired } from '@platform/test-kit';
import { expect } from 'chai';

/**
 * The drills of docs/operations.md, shortened: two stock and two sales
 * instances behind the gateway on one PostgreSQL and one RabbitMQ, each
 * process real, each fault real (SIGTERM, SIGKILL, pg_ctlcluster, rabbitmqctl).
 * `pnpm drills` runs them at full size and writes the figures into the doc.
 */
describe('the drills, shortened', function () {
  this.timeout(600_000);
  before(function () {
    if (!postgresRequired || !rabbitmqRequired) {
      console.warn('  ! the drills restart the machine’s PostgreSQL and RabbitMQ: they run in CI (or with REQUIRE_POSTGRES=1 REQUIRE_RABBITMQ=1) only.');
      this.skip();
    }
  });

  const held = (result: DrillResult) => {
    expect(result.broken, `${result.drill}: ${JSON.stringify(result.figures)}`).to.deep.equal([]);
    expect(result.kept.length).to.be.greaterThan(0);
  };

  it('two of each behind the gateway: exact concurrency, and relays and sweepers on both instances without a double effect', async () => held(await concurrencyDrill(SHORT.concurrency)));
  it('a rolling restart of every service instance under load fails no request', async () => held(await rollingRestartDrill(SHORT.rolling)));
  it('kill -9 of each process in turn loses nothing acknowledged, and every order ends final with one effect', async () => held(await killNineDrill(SHORT.kill)));
  it('PostgreSQL restarted under load: readiness 503 then 200 by itself, no acknowledged write lost', async () => held(await postgresRestartDrill(SHORT.postgres)));
  it('RabbitMQ restarted under load: no event lost, every backlog drains', async () => held(await rabbitmqRestartDrill(SHORT.rabbit)));
  it('a soak of mixed load through the gateway fails no request and leaves nothing unpublished', async () => held(await soakDrill(SHORT.soak)));
});
