import { BACKENDS, eventually } from '@platform/test-kit';
import { newEvent } from '@commerce/contracts';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { DEFAULT_CONFIG, startStockService, Tokens } from '../src';
import { uncheckedFetch } from './checked-fetch';
import { eachWithWebhooks, json, startServiceUnderTest, WEBHOOKS_ON } from './support';

for (const backend of BACKENDS) {
  describe(`stock's webhooks on ${backend}`, () => {
    const the = eachWithWebhooks(backend);

    it('delivers what a use case writes to the outbox, without AMQP_URL, signed as standardwebhooks verifies', async () => {
      const created = await the.stock.request(
        '/api/webhook-subscriptions',
        json({ url: the.receiver.url, events: ['stock.reservation.released'] }),
      );
      const { id, secret } = (await created.json()) as { id: string; secret: string };
      const event = newEvent(
        'stock.reservation.released',
        { orderId: randomUUID(), reservationId: randomUUID() },
        new Date(),
      );
      const unitOfWork = the.stock.service.container.resolve(Tokens.UnitOfWork);
      await unitOfWork.run(async (tx) => {
        await tx.outbox.add(
          newEvent('stock.reservation.expired', { orderId: randomUUID(), reservationId: randomUUID() }, new Date()),
        );
        await tx.outbox.add(event);
      });
      const [delivery] = await eventually(
        'the delivery',
        10_000,
        () => the.receiver.received.length > 0 && the.receiver.received,
      );
      const headers = {
        'webhook-id': String(delivery!.headers['webhook-id']),
        'webhook-timestamp': String(delivery!.headers['webhook-timestamp']),
        'webhook-signature': String(delivery!.headers['webhook-signature']),
      };
      expect(new Webhook(secret).verify(delivery!.body, headers)).to.deep.equal({
        type: event.type,
        timestamp: event.occurredAt,
        data: event.data,
      });
      expect(headers['webhook-id']).to.equal(`msg_${event.id}`);
      const attempts = await eventually('the attempt', 10_000, async () => {
        const listed = (await (
          await the.stock.request(`/api/webhook-subscriptions/${id}/deliveries`)
        ).json()) as unknown[];
        return listed.length > 0 && listed;
      });
      expect(attempts[0]).to.include({ eventId: event.id, statusCode: 204, error: null });

      const replay = await the.stock.request(
        `/api/webhook-subscriptions/${id}/replay`,
        json({ since: '2000-01-01T00:00:00Z' }),
      );
      expect(replay.status).to.equal(202);
      expect(await replay.json()).to.deep.equal({ queued: 1 });
      await eventually('the replay', 10_000, () => the.receiver.received.length === 2);
      expect(the.receiver.received[1]!.headers['webhook-id']).to.equal(`msg_${event.id}`);
      expect(the.receiver.received).to.have.length(2);
    });
  });
}

describe("stock's webhook settings", () => {
  it('refuses a loopback URL unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true', async function () {
    const stock = await startServiceUnderTest(
      'memory',
      this,
      {},
      { ...WEBHOOKS_ON, webhookAllowPrivateTargets: 'false' },
    );
    try {
      const refused = await stock.request(
        '/api/webhook-subscriptions',
        json({ url: 'http://127.0.0.1:9/hook', events: ['*'] }),
      );
      expect(refused.status).to.equal(400);
      expect(((await refused.json()) as { errors: { url: string[] } }).errors.url[0]).to.match(/loopback, private/);
    } finally {
      await stock.stop();
    }
  });

  it('will not start with webhooks on and no usable WEBHOOK_SECRETS_KEY, and says how to make one', async () => {
    for (const key of ['', 'too-short']) {
      let failure: unknown;
      await startStockService({
        ...DEFAULT_CONFIG,
        port: 0,
        databaseUrl: 'memory:',
        ...WEBHOOKS_ON,
        webhookSecretsKey: key,
      }).catch((error: unknown) => (failure = error));
      expect(String(failure)).to.match(/WEBHOOK_SECRETS_KEY .*openssl rand -base64 32/);
    }
  });

  it('serves no subscription API with webhooks off', async function () {
    const stock = await startServiceUnderTest('memory', this);
    try {
      const response = await uncheckedFetch(
        `${stock.service.url}/api/webhook-subscriptions`,
        undefined,
        'the description describes the service with webhooks on',
      );
      expect(response.status).to.equal(404);
    } finally {
      await stock.stop();
    }
  });
});
