import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { AttemptRecord, DeliveryOutcome, SubscriptionRecord, WebhookStore } from '@stock/domain';
import { anEvent, databaseHarness, type HarnessFactory, memoryHarness, type StoreHarness } from './store-harness';

const NOW = Date.parse('2026-12-01T10:00:00Z');
const LEASE = 60_000;

function aSubscription(events: string[], overrides: Partial<SubscriptionRecord> = {}): SubscriptionRecord {
  return {
    id: randomUUID(),
    url: 'http://127.0.0.1:9/hook',
    events,
    description: '',
    secret: 'sealed',
    previousSecret: null,
    previousSecretUntil: null,
    createdAt: NOW,
    disabledAt: null,
    ...overrides,
  };
}

const attemptOf = (deliveryId: string, subscriptionId: string, eventId: string, at = NOW) => ({
  deliveryId,
  subscriptionId,
  eventId,
  eventType: 'stock.level.changed',
  attemptedAt: at,
  statusCode: 500,
  durationMs: 3,
  error: 'boom',
});

/** One attempt recorded on its own, as a run of one. */
const recordAttempt = (store: WebhookStore, attempt: AttemptRecord, outcome: DeliveryOutcome) =>
  store.recordAttempts([{ attempt, outcome }]);

function webhookStoreContract(name: string, open: HarnessFactory): void {
  describe(`the webhook store: ${name}`, function () {
    let h: StoreHarness;
    beforeEach(async function () {
      h = await open(this);
    });
    afterEach(() => h.close());

    it('fans each outbox event out once, one delivery per enabled subscription whose types take it', async () => {
      const all = aSubscription(['*']);
      const reservations = aSubscription(['stock.reservation.confirmed']);
      const gone = aSubscription(['*'], { disabledAt: NOW });
      for (const s of [all, reservations, gone]) await h.store.addSubscription(s);
      await h.write(
        anEvent('stock.reservation.confirmed', { orderId: 'o-1', reservationId: 'r-1' }),
        anEvent('stock.level.changed', { productId: 7, sequence: 1 }),
      );
      expect(await h.store.fanOut(100, NOW)).to.equal(2);
      expect(await h.store.fanOut(100, NOW)).to.equal(0);
      const claimed = await h.store.claim(100, LEASE, NOW);
      expect(claimed.map((d) => [d.subscription.id, d.event.type]).sort()).to.deep.equal(
        [
          [all.id, 'stock.level.changed'],
          [all.id, 'stock.reservation.confirmed'],
          [reservations.id, 'stock.reservation.confirmed'],
        ].sort(),
      );
      const level = claimed.find((d) => d.event.type === 'stock.level.changed')!;
      expect(level.event).to.include({ orderingKey: 'product:7', sequence: 1 });
    });

    it('claims only the oldest unsettled delivery of a subscription and key, so none overtakes another', async () => {
      const s = aSubscription(['*']);
      await h.store.addSubscription(s);
      const [first, second, other] = [
        anEvent('stock.level.changed', { productId: 1, sequence: 1 }),
        anEvent('stock.level.changed', { productId: 1, sequence: 2 }),
        anEvent('stock.level.changed', { productId: 2, sequence: 1 }),
      ];
      await h.write(first, second, other);
      await h.store.fanOut(100, NOW);
      const claimed = await h.store.claim(100, LEASE, NOW);
      expect(claimed.map((d) => d.event.id)).to.deep.equal([first.id, other.id]);
      // Failed and due again at once: still the head of its key, the second waits behind it.
      const head = claimed[0]!;
      await recordAttempt(h.store, attemptOf(head.id, s.id, head.event.id), { kind: 'retry', nextAttemptAt: NOW });
      expect((await h.store.claim(100, LEASE, NOW)).map((d) => d.event.id)).to.deep.equal([first.id]);
      await recordAttempt(h.store, attemptOf(head.id, s.id, head.event.id), { kind: 'delivered' });
      const next = await h.store.claim(100, LEASE, NOW);
      expect(next.map((d) => [d.event.id, d.attempts])).to.deep.equal([[second.id, 0]]);
    });

    it('claims a run of a key behind its head, in order; the released rest is claimable again, oldest first', async () => {
      const s = aSubscription(['*']);
      await h.store.addSubscription(s);
      const hot = [1, 2, 3, 4, 5].map((sequence) => anEvent('stock.level.changed', { productId: 1, sequence }));
      const other = anEvent('stock.level.changed', { productId: 2, sequence: 1 });
      await h.write(hot[0]!, other, ...hot.slice(1));
      await h.store.fanOut(100, NOW);
      const claimed = await h.store.claim(10, LEASE, NOW, 3);
      expect(claimed.map((d) => d.event.id)).to.deep.equal([hot[0]!.id, hot[1]!.id, hot[2]!.id, other.id]);
      // Nobody else gets any of the run, nor what stands behind it.
      expect(await h.otherStore.claim(10, LEASE, NOW, 3)).to.deep.equal([]);
      await recordAttempt(
        h.store,
        { ...attemptOf(claimed[0]!.id, s.id, hot[0]!.id), statusCode: 200 },
        { kind: 'delivered' },
      );
      await h.store.release([claimed[1]!.id, claimed[2]!.id]);
      const again = await h.otherStore.claim(10, LEASE, NOW, 10);
      expect(again.map((d) => d.event.id)).to.deep.equal(hot.slice(1).map((e) => e.id));
    });

    it('records a run’s attempts in one write, in their order, and releases the rest of the run', async () => {
      const s = aSubscription(['*']);
      await h.store.addSubscription(s);
      const hot = [1, 2, 3, 4].map((sequence) => anEvent('stock.level.changed', { productId: 1, sequence }));
      await h.write(...hot);
      await h.store.fanOut(100, NOW);
      const run = await h.store.claim(10, LEASE, NOW, 4);
      expect(run.map((d) => d.event.id)).to.deep.equal(hot.map((e) => e.id));
      const tried = (i: number, statusCode: number, outcome: DeliveryOutcome) => ({
        attempt: { ...attemptOf(run[i]!.id, s.id, hot[i]!.id, NOW + i), statusCode },
        outcome,
      });
      await h.store.recordAttempts(
        [
          tried(0, 200, { kind: 'delivered' }),
          tried(1, 204, { kind: 'delivered' }),
          tried(2, 500, { kind: 'retry', nextAttemptAt: NOW }),
        ],
        [run[3]!.id],
      );
      expect((await h.store.attempts(s.id, 10)).map((a) => [a.eventId, a.statusCode])).to.deep.equal([
        [hot[2]!.id, 500],
        [hot[1]!.id, 204],
        [hot[0]!.id, 200],
      ]);
      const again = await h.otherStore.claim(10, LEASE, NOW, 10);
      expect(again.map((d) => [d.event.id, d.attempts])).to.deep.equal([
        [hot[2]!.id, 1],
        [hot[3]!.id, 0],
      ]);
    });

    it('leases a claimed delivery: no other instance gets it until the lease ends', async () => {
      const s = aSubscription(['*']);
      await h.store.addSubscription(s);
      await h.write(anEvent('stock.level.changed', { productId: 1 }));
      await h.store.fanOut(100, NOW);
      const [claimed] = await h.store.claim(100, LEASE, NOW);
      expect(claimed).to.not.equal(undefined);
      expect(await h.otherStore.claim(100, LEASE, NOW + LEASE - 1)).to.deep.equal([]);
      expect((await h.otherStore.claim(100, LEASE, NOW + LEASE)).map((d) => d.id)).to.deep.equal([claimed!.id]);
    });

    it('gives instances claiming at once disjoint deliveries', async () => {
      const s = aSubscription(['*']);
      await h.store.addSubscription(s);
      const events = Array.from({ length: 40 }, (_, i) => anEvent('stock.level.changed', { productId: i + 1 }));
      await h.write(...events);
      await h.store.fanOut(100, NOW);
      const batches = await Promise.all([
        h.store.claim(15, LEASE, NOW),
        h.otherStore.claim(15, LEASE, NOW),
        h.store.claim(15, LEASE, NOW),
      ]);
      const ids = batches.flat().map((d) => d.id);
      expect(new Set(ids).size).to.equal(ids.length);
      expect(ids.length).to.equal(40);
    });

    it('waits with a delivery to retry until it is due, and lists attempts newest first', async () => {
      const s = aSubscription(['*']);
      await h.store.addSubscription(s);
      await h.write(anEvent('stock.level.changed', { productId: 1 }));
      await h.store.fanOut(100, NOW);
      const [d] = await h.store.claim(1, LEASE, NOW);
      await recordAttempt(h.store, attemptOf(d!.id, s.id, d!.event.id, NOW), {
        kind: 'retry',
        nextAttemptAt: NOW + 5000,
      });
      expect(await h.store.claim(1, LEASE, NOW + 4999)).to.deep.equal([]);
      const [again] = await h.store.claim(1, LEASE, NOW + 5000);
      expect(again!.attempts).to.equal(1);
      await recordAttempt(
        h.store,
        { ...attemptOf(again!.id, s.id, again!.event.id, NOW + 5000), statusCode: 204, error: null },
        { kind: 'delivered' },
      );
      const attempts = await h.store.attempts(s.id, 10);
      expect(attempts.map((a) => [a.attemptedAt, a.statusCode, a.error])).to.deep.equal([
        [NOW + 5000, 204, null],
        [NOW, 500, 'boom'],
      ]);
      expect(await h.store.claim(1, LEASE, NOW + 10_000)).to.deep.equal([]);
    });

    it('disables a subscription whose receiver is gone, and delivers nothing more to it', async () => {
      const s = aSubscription(['*']);
      await h.store.addSubscription(s);
      await h.write(anEvent('stock.level.changed', { productId: 1 }), anEvent('stock.level.changed', { productId: 2 }));
      await h.store.fanOut(100, NOW);
      const [d] = await h.store.claim(1, LEASE, NOW);
      await recordAttempt(
        h.store,
        { ...attemptOf(d!.id, s.id, d!.event.id), statusCode: 410 },
        { kind: 'failed', disableSubscription: true },
      );
      expect((await h.store.subscription(s.id))!.disabledAt).to.equal(NOW);
      expect(await h.store.claim(100, LEASE, NOW)).to.deep.equal([]);
      await h.write(anEvent('stock.level.changed', { productId: 3 }));
      await h.store.fanOut(100, NOW);
      expect(await h.store.claim(100, LEASE, NOW)).to.deep.equal([]);
    });

    it('replays one product from a sequence on (inclusive), or everything since a time, with the stored event ids', async () => {
      const s = aSubscription(['stock.level.changed']);
      await h.store.addSubscription(s);
      const base = NOW - 60_000;
      const events = [1, 2, 3].map((sequence) => anEvent('stock.level.changed', { productId: 5, sequence }, base));
      const unrelated = anEvent('stock.level.changed', { productId: 6, sequence: 1 }, base);
      const untaken = anEvent('stock.reservation.confirmed', { orderId: 'o-1' }, base);
      await h.write(...events, unrelated, untaken);
      await h.store.fanOut(100, NOW);
      for (
        let batch = await h.store.claim(100, LEASE, NOW);
        batch.length > 0;
        batch = await h.store.claim(100, LEASE, NOW)
      )
        for (const d of batch)
          await recordAttempt(
            h.store,
            { ...attemptOf(d.id, s.id, d.event.id), statusCode: 200 },
            { kind: 'delivered' },
          );

      expect(await h.store.replay(s.id, { productId: 5, sinceSequence: 2 }, NOW)).to.equal(2);
      const replayed = await h.store.claim(100, LEASE, NOW);
      expect(replayed.map((d) => d.event.id)).to.deep.equal([events[1]!.id]);
      await recordAttempt(
        h.store,
        { ...attemptOf(replayed[0]!.id, s.id, events[1]!.id), statusCode: 200 },
        { kind: 'delivered' },
      );
      expect((await h.store.claim(100, LEASE, NOW)).map((d) => d.event.id)).to.deep.equal([events[2]!.id]);

      const since = Date.parse(unrelated.occurredAt);
      expect(await h.store.replay(s.id, { since }, NOW)).to.equal(1);
      expect(await h.store.replay(randomUUID(), { since: 0 }, NOW)).to.equal(0);
    });

    it('sweeps settled deliveries made before the cut-off with their attempts and events, keeping pending and newer ones', async () => {
      const s = aSubscription(['*']);
      await h.store.addSubscription(s);
      const OLD = NOW - 8 * 86_400_000;
      const [delivered, failed, retrying, recent] = [
        anEvent('stock.level.changed', { productId: 1, sequence: 1 }, OLD),
        anEvent('stock.level.changed', { productId: 2, sequence: 1 }, OLD),
        anEvent('stock.level.changed', { productId: 3, sequence: 1 }, OLD),
        anEvent('stock.level.changed', { productId: 4, sequence: 1 }, NOW),
      ];
      await h.write(delivered, failed, retrying);
      await h.store.fanOut(100, OLD);
      await h.write(recent);
      await h.store.fanOut(100, NOW);
      const byEvent = new Map((await h.store.claim(100, LEASE, NOW)).map((d) => [d.event.id, d.id]));
      const settle = (event: { id: string }, statusCode: number, outcome: DeliveryOutcome) =>
        recordAttempt(h.store, { ...attemptOf(byEvent.get(event.id)!, s.id, event.id), statusCode }, outcome);
      await settle(delivered, 200, { kind: 'delivered' });
      await settle(failed, 500, { kind: 'failed', disableSubscription: false });
      await settle(retrying, 500, { kind: 'retry', nextAttemptAt: NOW });
      await settle(recent, 200, { kind: 'delivered' });

      const cutOff = NOW - 7 * 86_400_000;
      expect(await h.store.sweep(cutOff, 1)).to.equal(1);
      expect(await h.otherStore.sweep(cutOff, 100)).to.equal(1);
      expect(await h.store.sweep(cutOff, 100)).to.equal(0);
      // Kept: the retrying delivery's attempt and the recent one's; forgotten: the two settled before the cut-off.
      expect((await h.store.attempts(s.id, 10)).map((a) => a.eventId).sort()).to.deep.equal(
        [retrying.id, recent.id].sort(),
      );
      expect((await h.store.claim(100, LEASE, NOW)).map((d) => d.event.id)).to.deep.equal([retrying.id]);
      // The events of the forgotten deliveries are gone too: a replay since before them finds only what is kept.
      expect(await h.store.replay(s.id, { since: OLD - 1 }, NOW)).to.equal(2);
    });

    it('rotates a secret, keeping the old one with its end, and removes a subscription with its deliveries', async () => {
      const s = aSubscription(['*']);
      await h.store.addSubscription(s);
      expect(await h.store.rotateSecret(s.id, 'sealed-2', 'sealed', NOW + 1000)).to.equal(true);
      expect(await h.store.subscription(s.id)).to.deep.include({
        secret: 'sealed-2',
        previousSecret: 'sealed',
        previousSecretUntil: NOW + 1000,
      });
      expect(await h.store.rotateSecret(randomUUID(), 'x', 'y', 1)).to.equal(false);
      await h.write(anEvent('stock.level.changed', { productId: 1 }));
      await h.store.fanOut(100, NOW);
      expect(await h.store.removeSubscription(s.id)).to.equal(true);
      expect(await h.store.removeSubscription(s.id)).to.equal(false);
      expect(await h.store.subscriptions()).to.deep.equal([]);
      expect(await h.store.claim(100, LEASE, NOW)).to.deep.equal([]);
    });
  });
}

webhookStoreContract('in memory', memoryHarness());
webhookStoreContract('MikroORM on SQLite', databaseHarness('sqlite'));
webhookStoreContract('MikroORM on PostgreSQL', databaseHarness('postgresql'));
