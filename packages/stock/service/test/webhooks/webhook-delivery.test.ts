import { createLogger } from '@platform/runtime';
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  checkTarget,
  SecretBox,
  undiciSender,
  WebhookDelivery,
  type WebhookSender,
  WebhookSubscriptions,
} from '@stock/application';
import { Receiver } from './receiver';
import { anEvent, type HarnessFactory, memoryHarness, type StoreHarness, databaseHarness } from './store-harness';

const logger = createLogger('webhooks-test', 'error', 'json');
const box = new SecretBox(randomBytes(32));
const senderFor = (allowPrivateTargets: boolean) =>
  undiciSender({ allowPrivateTargets, connectTimeoutMs: 2000, answerTimeoutMs: 2000, maxAnswerBytes: 1024 });

/** Verifies a delivery as a receiver would, with the standardwebhooks package. */
function verify(secret: string, request: { headers: Record<string, unknown>; body: string }) {
  const headers = Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(request.headers[name])]),
  );
  return new Webhook(secret).verify(request.body, headers);
}

interface Rig {
  readonly h: StoreHarness;
  readonly subscriptions: WebhookSubscriptions;
  readonly worker: WebhookDelivery;
  readonly clock: { now: number };
  readonly sender: WebhookSender;
}

async function rig(open: HarnessFactory, context: Mocha.Context, allowPrivateTargets = true): Promise<Rig> {
  const h = await open(context);
  const clock = { now: Date.now() };
  const now = () => clock.now;
  const sender = senderFor(allowPrivateTargets);
  return {
    h,
    clock,
    sender,
    subscriptions: new WebhookSubscriptions({ store: h.store, secrets: box, allowPrivateTargets: true, now }),
    worker: new WebhookDelivery({ store: h.store, secrets: box, sender, logger, now }),
  };
}

for (const [name, open] of [
  ['in memory', memoryHarness()],
  ['on SQLite', databaseHarness('sqlite')],
] as const) {
  describe(`webhook delivery ${name}, to receivers on loopback`, function () {
    let r: Rig;
    let receiver: Receiver;
    beforeEach(async function () {
      r = await rig(open, this);
      receiver = await new Receiver().start();
    });
    afterEach(async () => {
      await receiver.stop();
      await r.sender.close();
      await r.h.close();
    });

    it('sends nothing when a subscription is made, then delivers each event signed as standardwebhooks verifies', async () => {
      const { subscription, secret } = await r.subscriptions.create({ url: receiver.url, events: ['*'] });
      expect(secret).to.match(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(subscription.secret).to.not.include(secret.slice(6));
      await r.worker.drain();
      expect(receiver.received).to.deep.equal([]);
      const event = anEvent('stock.reservation.confirmed', { orderId: 'o-1', reservationId: 'r-1' });
      await r.h.write(event);
      await r.worker.drain();
      expect(receiver.received).to.have.length(1);
      const [delivery] = receiver.received;
      expect(verify(secret, delivery!)).to.deep.equal({
        type: event.type,
        timestamp: event.occurredAt,
        data: event.data,
      });
      expect(delivery!.headers['webhook-id']).to.equal(`msg_${event.id}`);
      expect(delivery!.headers['content-type']).to.equal('application/json');
      const [attempt] = await r.subscriptions.attempts(subscription.id, 10);
      expect(attempt).to.include({ statusCode: 204, error: null, eventId: event.id });
    });

    it('retries across a receiver that is down, then up, with back-off from the injected clock, keeping the webhook-id', async () => {
      const { subscription, secret } = await r.subscriptions.create({ url: receiver.url, events: ['*'] });
      await receiver.stop();
      const event = anEvent('stock.level.changed', { productId: 3, sequence: 1 });
      await r.h.write(event);
      await r.worker.drain();
      const [refused] = await r.subscriptions.attempts(subscription.id, 10);
      expect(refused!.statusCode).to.equal(null);
      expect(refused!.error).to.match(/ECONNREFUSED/);
      // Not due before its back-off (5 s): nothing happens even with the receiver back.
      await receiver.start();
      await r.worker.drain();
      expect(receiver.received).to.deep.equal([]);
      receiver.answer = () => 503;
      r.clock.now += 5_000;
      await r.worker.drain();
      expect(receiver.received).to.have.length(1);
      receiver.answer = () => 200;
      r.clock.now += 15_000;
      await r.worker.drain();
      expect(receiver.received).to.have.length(2);
      const ids = receiver.received.map((request) => request.headers['webhook-id']);
      expect(ids).to.deep.equal([`msg_${event.id}`, `msg_${event.id}`]);
      for (const request of receiver.received) verify(secret, request);
      const attempts = await r.subscriptions.attempts(subscription.id, 10);
      expect(attempts.map((a) => a.statusCode)).to.deep.equal([200, 503, null]);
      expect(attempts[1]!.error).to.include('a long answer');
      expect(attempts[1]!.error!.length).to.be.at.most(200);
      r.clock.now += 86_400_000;
      await r.worker.drain();
      expect(receiver.received).to.have.length(2);
    });

    it('gives a delivery up after three days of retries and goes on to the next of its key', async () => {
      await r.subscriptions.create({ url: receiver.url, events: ['*'] });
      receiver.answer = () => 500;
      const [first, second] = [1, 2].map((sequence) => anEvent('stock.level.changed', { productId: 9, sequence }));
      await r.h.write(first!, second!);
      for (let day = 0; day <= 4; day++) {
        await r.worker.drain();
        r.clock.now += 12 * 3_600_000;
        await r.worker.drain();
        r.clock.now += 12 * 3_600_000;
      }
      const ids = new Set(receiver.received.map((request) => request.headers['webhook-id']));
      expect([...ids]).to.deep.equal([`msg_${first!.id}`, `msg_${second!.id}`]);
    });

    it('disables the subscription when the receiver answers 410 Gone', async () => {
      const { subscription } = await r.subscriptions.create({ url: receiver.url, events: ['*'] });
      receiver.answer = () => 410;
      await r.h.write(
        anEvent('stock.level.changed', { productId: 1 }),
        anEvent('stock.level.changed', { productId: 2 }),
      );
      await r.worker.drain();
      expect((await r.subscriptions.get(subscription.id)).disabledAt).to.not.equal(null);
      const count = receiver.received.length;
      r.clock.now += 86_400_000;
      await r.h.write(anEvent('stock.level.changed', { productId: 3 }));
      await r.worker.drain();
      expect(receiver.received.length).to.equal(count);
    });

    it('signs with the old and the new secret for 24 hours after a rotation, then with the new one only', async () => {
      const { subscription, secret: old } = await r.subscriptions.create({ url: receiver.url, events: ['*'] });
      const { secret: fresh } = await r.subscriptions.rotateSecret(subscription.id);
      await r.h.write(anEvent('stock.level.changed', { productId: 1 }));
      await r.worker.drain();
      const [both] = receiver.received;
      expect(String(both!.headers['webhook-signature']).split(' ')).to.have.length(2);
      verify(old, both!);
      verify(fresh, both!);
      r.clock.now += 24 * 3_600_000 + 1;
      await r.h.write(anEvent('stock.level.changed', { productId: 2 }));
      await r.worker.drain();
      const later = receiver.received[1]!;
      expect(String(later.headers['webhook-signature']).split(' ')).to.have.length(1);
      // verify checks the timestamp against the real clock: the signature is checked by hand here.
      const signed = new Webhook(fresh).sign(
        String(later.headers['webhook-id']),
        new Date(Number(later.headers['webhook-timestamp']) * 1000),
        later.body,
      );
      expect(later.headers['webhook-signature']).to.equal(signed);
    });

    it('sends a key’s run in order for one claim, and stops it at a failure, sending the rest after it in order', async () => {
      await r.subscriptions.create({ url: receiver.url, events: ['*'] });
      const events = [1, 2, 3, 4, 5, 6].map((sequence) => anEvent('stock.level.changed', { productId: 8, sequence }));
      await r.h.write(...events);
      await r.worker.fanOut();
      // One claim sends the whole run.
      expect(await r.worker.deliverDue()).to.equal(6);
      expect(receiver.received.map((request) => request.headers['webhook-id'])).to.deep.equal(
        events.map((e) => `msg_${e.id}`),
      );
      const more = [7, 8, 9].map((sequence) => anEvent('stock.level.changed', { productId: 8, sequence }));
      await r.h.write(...more);
      await r.worker.fanOut();
      receiver.answer = (request) => (request.headers['webhook-id'] === `msg_${more[1]!.id}` ? 503 : 204);
      await r.worker.deliverDue();
      // The 7th went, the 8th failed, the 9th was not sent behind it; after the back-off both go, in order.
      expect(receiver.received.slice(6).map((request) => request.headers['webhook-id'])).to.deep.equal(
        [more[0], more[1]].map((e) => `msg_${e!.id}`),
      );
      receiver.answer = () => 204;
      r.clock.now += 5_000;
      await r.worker.drain();
      expect(receiver.received.slice(8).map((request) => request.headers['webhook-id'])).to.deep.equal(
        [more[1], more[2]].map((e) => `msg_${e!.id}`),
      );
    });

    it('forgets what it delivered once the retention has passed, in batches, and never what is still to send', async () => {
      const now = () => r.clock.now;
      const worker = new WebhookDelivery({ store: r.h.store, secrets: box, sender: r.sender, logger, now, batch: 2 });
      const { subscription } = await r.subscriptions.create({ url: receiver.url, events: ['*'] });
      await r.h.write(...[1, 2, 3, 4, 5].map((productId) => anEvent('stock.level.changed', { productId })));
      await worker.drain();
      receiver.answer = () => 503;
      await r.h.write(anEvent('stock.level.changed', { productId: 6 }));
      await worker.drain();
      const HOUR = 3_600_000;
      r.clock.now += HOUR;
      expect(await worker.sweep(2 * HOUR)).to.equal(0);
      expect(await r.subscriptions.attempts(subscription.id, 10)).to.have.length(6);
      r.clock.now += 2 * HOUR;
      // Five delivered, in batches of two; the one still retrying stays, with its attempts.
      expect(await worker.sweep(2 * HOUR)).to.equal(5);
      const kept = await r.subscriptions.attempts(subscription.id, 10);
      expect(kept.map((attempt) => attempt.statusCode)).to.deep.equal([503]);
      receiver.answer = () => 204;
      await worker.drain();
      expect(receiver.received.at(-1)!.headers['webhook-id']).to.equal(`msg_${kept[0]!.eventId}`);
    });

    it('replays what is stored with the original webhook-ids', async () => {
      const { subscription, secret } = await r.subscriptions.create({
        url: receiver.url,
        events: ['stock.level.changed'],
      });
      const events = [1, 2, 3].map((sequence) => anEvent('stock.level.changed', { productId: 4, sequence }));
      await r.h.write(...events);
      await r.worker.drain();
      expect(await r.subscriptions.replay(subscription.id, { productId: 4, sinceSequence: 2 })).to.equal(2);
      await r.worker.drain();
      const ids = receiver.received.map((request) => request.headers['webhook-id']);
      expect(ids).to.deep.equal([...events, events[1], events[2]].map((e) => `msg_${e!.id}`));
      for (const request of receiver.received) verify(secret, request);
    });
  });
}

describe('webhook targets on loopback, private, link-local and metadata addresses', () => {
  for (const url of [
    'http://127.0.0.1/hook',
    'http://localhost:8080/hook',
    'http://10.1.2.3/hook',
    'http://192.168.0.10/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/hook',
    'http://[fd00:ec2::254]/hook',
    'http://[::ffff:127.0.0.1]/hook',
  ])
    it(`refuses ${url} when a subscription is made`, async () => {
      let refused: unknown;
      await checkTarget(url, false).catch((error: unknown) => (refused = error));
      expect(refused).to.be.an('error').with.property('code', 'WEBHOOK_TARGET_REFUSED');
    });

  it('allows them all with private targets allowed, and refuses a URL with credentials either way', async () => {
    await checkTarget('http://127.0.0.1/hook', true);
    let refused: unknown;
    await checkTarget('http://user:pw@example.com/hook', true).catch((error: unknown) => (refused = error));
    expect(refused).to.be.an('error').with.property('code', 'WEBHOOK_TARGET_REFUSED');
  });

  it('refuses them again when a delivery connects, by address and by a host name that resolves to one', async function () {
    const receiver = await new Receiver().start();
    const sender = senderFor(false);
    try {
      const message = {
        body: '{}',
        headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' },
      };
      for (const url of [receiver.url, `http://localhost:${receiver.port}/hook`]) {
        const result = await sender.send(url, message);
        expect(result.statusCode).to.equal(null);
        expect('error' in result && result.error).to.match(/may not reach/);
      }
      expect(receiver.received).to.deep.equal([]);
    } finally {
      await sender.close();
      await receiver.stop();
    }
  });

  it('follows no redirect: a 3xx is an answer to retry', async () => {
    const receiver = await new Receiver(() => 302).start();
    const sender = senderFor(true);
    try {
      const message = {
        body: '{}',
        headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' },
      };
      expect((await sender.send(receiver.url, message)).statusCode).to.equal(302);
      expect(receiver.received).to.have.length(1);
    } finally {
      await sender.close();
      await receiver.stop();
    }
  });
});

describe('webhook workers on PostgreSQL', () => {
  it('never send a leased delivery twice, however many deliver at once', async function () {
    const h = await databaseHarness('postgresql')(this);
    const receiver = await new Receiver().start();
    const sender = senderFor(true);
    try {
      const subscriptions = new WebhookSubscriptions({ store: h.store, secrets: box, allowPrivateTargets: true });
      await subscriptions.create({ url: receiver.url, events: ['*'] });
      const events = Array.from({ length: 60 }, (_, i) => anEvent('stock.level.changed', { productId: (i % 20) + 1 }));
      await h.write(...events);
      const workers = [h.store, h.otherStore, h.store, h.otherStore].map(
        (store) => new WebhookDelivery({ store, secrets: box, sender, logger, batch: 5 }),
      );
      await Promise.all(workers.map((worker) => worker.drain()));
      await Promise.all(workers.map((worker) => worker.drain()));
      const ids = receiver.received.map((request) => String(request.headers['webhook-id']));
      expect(ids.length).to.equal(60);
      expect(new Set(ids).size).to.equal(60);
      // Under each product, in the order written.
      for (let product = 1; product <= 20; product++) {
        const mine = events
          .filter((e) => (e.data as { productId: number }).productId === product)
          .map((e) => `msg_${e.id}`);
        expect(ids.filter((id) => mine.includes(id))).to.deep.equal(mine);
      }
    } finally {
      await sender.close();
      await receiver.stop();
      await h.close();
    }
  });
});
