import { expect } from 'chai';
import { TARGETS } from '../src/targets';
import { quantile, startLagReceiver } from '../src/webhook-lag';

describe("the bench's webhook lag", () => {
  it('is measured on the stock −1 load with webhooks on, against the same service with them off', () => {
    const lagged = TARGETS.filter((t) => t.webhookLag);
    expect(lagged.map((t) => [t.name, t.baseline, t.workloads])).to.deep.equal([
      ['service · SQLite, webhooks on', 'service · SQLite', ['stock -1 (hot row)']],
      ['service · PostgreSQL, webhooks on', 'service · PostgreSQL', ['stock -1 (hot row)']],
    ]);
    for (const target of lagged) {
      expect(target.env).to.include({ WEBHOOKS: 'on', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
      expect(TARGETS.find((t) => t.name === target.baseline)!.env ?? {}).to.not.have.property('WEBHOOKS');
    }
  });

  it("times a delivery from its event's timestamp to its arrival on loopback", async () => {
    const receiver = await startLagReceiver();
    try {
      const sent = new Date(Date.now() - 40);
      const answer = await fetch(receiver.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'stock.level.changed', timestamp: sent.toISOString(), data: {} }),
      });
      expect(answer.status).to.equal(204);
      expect(receiver.lagsMs).to.have.length(1);
      expect(receiver.lagsMs[0]).to.be.at.least(40);
    } finally {
      await receiver.close();
    }
  });

  it('takes quantiles by nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect([quantile(values, 0.5), quantile(values, 0.99), quantile([7], 0.99)]).to.deep.equal([50, 99, 7]);
  });
});
