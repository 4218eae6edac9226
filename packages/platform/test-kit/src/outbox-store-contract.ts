import type { Outbox, OutboxEnvelope, OutboxStore } from '@platform/kernel';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';

export interface OutboxFixture {
  /** Runs `work` in one transaction of the store: committed when it resolves, rolled back when it throws. */
  write(work: (outbox: Outbox) => Promise<void>): Promise<void>;
  readonly store: OutboxStore;
  /** The same outbox through connections of its own, as another instance's relay reaches it. */
  readonly otherStore: OutboxStore;
  /** Deletes every row. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const LEASE = 10_000;
const NOW = 1_800_000_000_000;

function event(occurredAt: number, type = 'test.happened'): OutboxEnvelope {
  return { id: randomUUID(), type, occurredAt: new Date(occurredAt).toISOString(), data: { at: occurredAt } };
}

/** Events one second apart, written in a shuffled order so that claiming by insertion would show. */
async function addEvents(fixture: OutboxFixture, count: number): Promise<OutboxEnvelope[]> {
  const events = Array.from({ length: count }, (_, i) => event(NOW - 1_000_000 + i * 1000));
  const shuffled = events.map((e, i) => [e, (i * 7919) % count] as const).sort((a, b) => a[1] - b[1]);
  await fixture.write(async (outbox) => {
    for (const [e] of shuffled) await outbox.add(e);
  });
  return events;
}

/**
 * What every outbox store must do, whatever keeps it: events commit with their
 * unit of work, relays lease rows without ever sharing one, failed rows wait
 * for their next attempt, published rows are swept in batches.
 */
export function outboxStoreContract(name: string, open: (context: Mocha.Context) => Promise<OutboxFixture>): void {
  describe(`outbox store contract: ${name}`, () => {
    let fixture: OutboxFixture;
    before(async function () {
      fixture = await open(this);
    });
    after(async () => fixture?.close());
    beforeEach(async () => fixture.reset());

    it('keeps an event only when its unit of work commits, with the envelope as it will travel', async () => {
      const rolledBack = event(NOW - 5000);
      await expect(
        fixture.write(async (outbox) => {
          await outbox.add(rolledBack);
          throw new Error('the change failed');
        }),
      ).to.be.rejectedWith('the change failed');
      expect(await fixture.store.countUnpublished()).to.equal(0);
      const kept = event(NOW - 5000);
      await fixture.write((outbox) => outbox.add(kept));
      const [claimed, ...rest] = await fixture.store.claim(10, LEASE, NOW);
      expect(rest).to.deep.equal([]);
      expect(claimed).to.deep.include({ id: kept.id, type: kept.type, occurredAt: NOW - 5000, attempts: 0 });
      expect(JSON.parse(claimed!.payload)).to.deep.equal(kept);
    });

    it('refuses a second event with the same id', async () => {
      const twice = event(NOW);
      await fixture.write((outbox) => outbox.add(twice));
      await expect(fixture.write((outbox) => outbox.add(twice))).to.be.rejected;
      expect(await fixture.store.countUnpublished()).to.equal(1);
    });

    it('claims the oldest due rows first, a batch at a time, and leases them until the lease ends', async () => {
      const events = await addEvents(fixture, 5);
      const ids = events.map((e) => e.id);
      expect((await fixture.store.claim(3, LEASE, NOW)).map((m) => m.id)).to.deep.equal(ids.slice(0, 3));
      expect((await fixture.store.claim(10, LEASE, NOW)).map((m) => m.id)).to.deep.equal(ids.slice(3));
      expect(await fixture.store.claim(10, LEASE, NOW + LEASE - 1)).to.deep.equal([]);
      // A relay that died holding the lease delays its rows, and loses none.
      expect((await fixture.otherStore.claim(10, LEASE, NOW + LEASE)).map((m) => m.id)).to.deep.equal(ids);
    });

    it('never hands the same row to two relays claiming at the same time', async () => {
      const events = await addEvents(fixture, 120);
      const claimedBy = async (store: OutboxStore) => {
        const ids: string[] = [];
        for (let round = 0; round < 100; round++) {
          const batch = await store.claim(7, LEASE, NOW);
          if (batch.length === 0) break;
          ids.push(...batch.map((m) => m.id));
        }
        return ids;
      };
      const [first, second] = await Promise.all([claimedBy(fixture.store), claimedBy(fixture.otherStore)]);
      const all = [...first, ...second];
      expect(new Set(all).size, 'no row twice').to.equal(all.length);
      expect([...all].sort()).to.deep.equal(events.map((e) => e.id).sort());
    });

    it('releases a row that failed and hands it out again only at its next attempt, with its count', async () => {
      const [only] = await addEvents(fixture, 1);
      await fixture.store.claim(1, LEASE, NOW);
      await fixture.store.retryLater(only!.id, 3, NOW + 5000);
      expect(await fixture.store.claim(10, LEASE, NOW + 4999)).to.deep.equal([]);
      const [again] = await fixture.store.claim(10, LEASE, NOW + 5000);
      expect(again).to.include({ id: only!.id, attempts: 3 });
      expect(await fixture.store.countUnpublished()).to.equal(1);
    });

    it('never hands out a published row again, not even after a late retryLater', async () => {
      const events = await addEvents(fixture, 3);
      await fixture.store.claim(10, LEASE, NOW);
      await fixture.store.markPublished([events[0]!.id, events[1]!.id], NOW + 1);
      await fixture.store.retryLater(events[0]!.id, 1, NOW);
      expect(await fixture.store.countUnpublished()).to.equal(1);
      expect((await fixture.store.claim(10, LEASE, NOW + LEASE)).map((m) => m.id)).to.deep.equal([events[2]!.id]);
      await fixture.store.markPublished([], NOW);
    });

    it('sweeps rows published before the cutoff in batches, and never an unpublished one', async () => {
      const events = await addEvents(fixture, 6);
      await fixture.store.claim(10, LEASE, NOW);
      await fixture.store.markPublished(
        events.slice(0, 4).map((e) => e.id),
        NOW,
      );
      await fixture.store.markPublished([events[4]!.id], NOW + 1);
      expect(await fixture.store.deletePublished(NOW + 1, 3)).to.equal(3);
      expect(await fixture.store.deletePublished(NOW + 1, 3)).to.equal(1);
      expect(await fixture.store.deletePublished(NOW + 1, 3)).to.equal(0);
      expect(await fixture.store.deletePublished(NOW + 2, 3)).to.equal(1);
      expect(await fixture.store.countUnpublished()).to.equal(1);
      expect((await fixture.store.claim(10, LEASE, NOW + LEASE)).map((m) => m.id)).to.deep.equal([events[5]!.id]);
    });

    it('lets two sweepers delete together without deleting a row twice or failing', async () => {
      const events = await addEvents(fixture, 60);
      await fixture.store.claim(100, LEASE, NOW);
      await fixture.store.markPublished(
        events.map((e) => e.id),
        NOW,
      );
      const sweep = async (store: OutboxStore) => {
        let deleted = 0;
        for (let n = -1; n !== 0; deleted += n) n = await store.deletePublished(NOW + 1, 5);
        return deleted;
      };
      const [first, second] = await Promise.all([sweep(fixture.store), sweep(fixture.otherStore)]);
      expect(first + second).to.equal(60);
    });
  });
}
