import { randomUUID } from 'node:crypto';
import type { StockTransfer, TransferKey, TransferPageQuery } from '../src';
import { expect } from 'chai';
import { aTransfer as aTransferOf } from './builders';
import { aStoredLocation, aStoredProduct, inTransaction } from './stock-fixtures';
import { onOneStore, type OpenStockStore, type StockStoreUnderTest } from './stock-store';

const CREATED = new Date('2030-01-02T03:04:05.678Z');
const LATER = new Date('2030-01-02T04:00:00.001Z');

/** What every TransferRepository adapter promises: one transfer per reference, and one way out of in-transit. */
export function transferRepositoryContract(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  let productId: number;
  let to: number;

  const aTransfer = (overrides: Partial<StockTransfer> = {}): StockTransfer =>
    aTransferOf({ productId, toLocationId: to, createdAt: CREATED, updatedAt: CREATED, ...overrides });
  const claim = (transfer: StockTransfer) => inTransaction(store, (tx) => tx.transfers.claim(transfer));

  onOneStore(
    open,
    (opened) => (store = opened),
    async () => {
      productId = (await aStoredProduct(store)).id;
      to = (await aStoredLocation(store)).id;
    },
  );

  it('stores a transfer and finds it by id and by reference, as it was given', async () => {
    const transfer = aTransfer({ reference: 'ASN-ünï-42', quantity: 2147483647 });
    expect(await claim(transfer)).to.equal('claimed');
    expect(await store.transfers.findById(transfer.id)).to.deep.equal(transfer);
    expect(await store.transfers.findByReference('ASN-ünï-42')).to.deep.equal(transfer);
    expect(await store.transfers.findById(randomUUID())).to.equal(undefined);
    expect(await store.transfers.findByReference('none')).to.equal(undefined);
  });

  it('answers taken for a reference that has a transfer, keeping the first', async () => {
    const first = aTransfer({ reference: 'ASN-1' });
    await claim(first);
    expect(await claim(aTransfer({ reference: 'ASN-1', quantity: 9 }))).to.equal('taken');
    expect(await store.transfers.findByReference('ASN-1')).to.deep.equal(first);
  });

  it('moves an in-transit transfer on once, to received or cancelled', async () => {
    for (const status of ['received', 'cancelled'] as const) {
      const transfer = aTransfer();
      await claim(transfer);
      const moved = await inTransaction(store, (tx) => tx.transfers.transition(transfer.id, status, LATER));
      expect(moved).to.deep.equal({ ...transfer, status, updatedAt: LATER });
      expect(await store.transfers.findById(transfer.id)).to.deep.equal(moved);
      for (const again of ['received', 'cancelled'] as const)
        expect(await inTransaction(store, (tx) => tx.transfers.transition(transfer.id, again, LATER)), again).to.equal(
          undefined,
        );
      expect(await store.transfers.findById(transfer.id)).to.deep.equal(moved);
    }
    expect(await inTransaction(store, (tx) => tx.transfers.transition(randomUUID(), 'received', LATER))).to.equal(
      undefined,
    );
  });

  it('lists in transit first, then newest first (the id breaking ties), a page at a time, by status and product', async () => {
    const other = (await aStoredProduct(store)).id;
    const made = (id: number, minutes: number, overrides: Partial<StockTransfer> = {}) => {
      const at = new Date(CREATED.getTime() + minutes * 60_000);
      const uuid = `00000000-0000-4000-8000-${id.toString(16).padStart(12, '0')}`;
      return aTransfer({ id: uuid, createdAt: at, updatedAt: at, ...overrides });
    };
    const [old, tieLow, tieHigh, ended, elsewhere] = [
      made(1, 0),
      made(10, 1),
      made(11, 1),
      made(2, 2),
      made(3, 3, { productId: other }),
    ];
    for (const transfer of [old, tieLow, tieHigh, ended, elsewhere]) await claim(transfer);
    const received = (await inTransaction(store, (tx) => tx.transfers.transition(ended.id, 'received', LATER)))!;
    const list = (query: Partial<TransferPageQuery> = {}) => store.transfers.list({ limit: 10, ...query });

    expect(await list()).to.deep.equal({ items: [elsewhere, tieHigh, tieLow, old, received] });
    const pages: (readonly StockTransfer[])[] = [];
    let after: TransferKey | undefined;
    do {
      const page = await list({ limit: 2, ...(after && { after }) });
      pages.push(page.items);
      after = page.next;
    } while (after);
    expect(pages).to.deep.equal([[elsewhere, tieHigh], [tieLow, old], [received]]);
    expect(await list({ status: 'received' })).to.deep.equal({ items: [received] });
    expect(await list({ productId })).to.deep.equal({ items: [tieHigh, tieLow, old, received] });
    expect(await list({ productId, status: 'in-transit', limit: 3 })).to.deep.equal({ items: [tieHigh, tieLow, old] });
    expect(await list({ status: 'cancelled' })).to.deep.equal({ items: [] });
  });

  it('lets exactly one of concurrent claims of a reference win', async () => {
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => claim(aTransfer({ reference: 'ASN-race' }))));
    expect(outcomes.filter((o) => o === 'claimed')).to.have.length(1);
    expect(outcomes.filter((o) => o === 'taken')).to.have.length(9);
  });
}
