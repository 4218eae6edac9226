import { type IdempotencyStore, IdempotencyKeyReusedError, type ProductRepository, type RecordedResponse } from '@stock/domain';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import sinon from 'sinon';
import { aProduct } from './builders';

chai.use(chaiAsPromised);
const { expect } = chai;

export const CONTRACT_TTL_MS = 60_000;

export interface IdempotencyUnderTest {
  /** A store whose records live CONTRACT_TTL_MS by the given clock. */
  readonly store: IdempotencyStore;
  /** The products the store's transactions share. */
  readonly repository: ProductRepository;
  close(): Promise<void>;
}

/**
 * The behaviour every IdempotencyStore promises; `open` builds one on the given clock.
 * `transactional` stores (the databases) also roll a failed effect's writes back with its claim.
 */
export function idempotencyStoreContract(
  open: (context: Mocha.Context, now: () => number) => Promise<IdempotencyUnderTest>,
  { transactional }: { transactional: boolean },
): void {
  let subject: IdempotencyUnderTest;
  let clock = 1_000_000;
  let sequence = 0;
  const request = (fingerprint = 'payload-a') => ({ scope: 'POST /api/products', key: `key-${sequence}`, fingerprint });
  const created = async (products: ProductRepository): Promise<RecordedResponse> => {
    const product = await products.add(aProduct());
    return { status: 201, headers: { location: `/api/products/${product.id}` }, body: JSON.stringify({ id: product.id }) };
  };

  before(async function () {
    subject = await open(this, () => clock);
  });
  beforeEach(() => {
    sequence += 1;
  });
  after(async () => subject?.close());

  it('runs the effect once and answers repeats with the recorded response', async () => {
    const effect = sinon.spy(() => created(subject.repository));
    const first = await subject.store.once(request(), effect);
    const second = await subject.store.once(request(), effect);
    expect(first.replayed).to.equal(false);
    expect(second).to.deep.equal({ response: first.response, replayed: true });
    sinon.assert.calledOnce(effect);
  });

  it('refuses the same key with another payload', async () => {
    await subject.store.once(request('payload-a'), () => created(subject.repository));
    await expect(subject.store.once(request('payload-b'), () => created(subject.repository))).to.be.rejectedWith(IdempotencyKeyReusedError);
  });

  it('keeps keys of different operations apart', async () => {
    const a = await subject.store.once(request(), async () => ({ status: 200, headers: {}, body: 'a' }));
    const b = await subject.store.once({ ...request(), scope: 'POST /api/products/1/stock-adjustments' }, async () => ({ status: 200, headers: {}, body: 'b' }));
    expect([a.response.body, b.response.body, b.replayed]).to.deep.equal(['a', 'b', false]);
  });

  it('records nothing when the effect fails, so a retry runs it again', async () => {
    await expect(subject.store.once(request(), async () => Promise.reject(new Error('boom')))).to.be.rejectedWith('boom');
    const retry = await subject.store.once(request(), async () => ({ status: 201, headers: {}, body: 'second try' }));
    expect(retry).to.deep.include({ replayed: false });
    expect(retry.response.body).to.equal('second try');
  });

  it('runs the effect once when repeats arrive together', async () => {
    const effect = sinon.spy(() => created(subject.repository));
    const results = await Promise.all(Array.from({ length: 10 }, () => subject.store.once(request(), effect)));
    sinon.assert.calledOnce(effect);
    expect(results.filter((r) => !r.replayed)).to.have.length(1);
    expect(new Set(results.map((r) => r.response.body)).size).to.equal(1);
  });

  it('forgets a key once its record expires', async () => {
    await subject.store.once(request(), async () => ({ status: 201, headers: {}, body: 'first' }));
    clock += CONTRACT_TTL_MS + 1;
    const again = await subject.store.once(request('another payload'), async () => ({ status: 201, headers: {}, body: 'after expiry' }));
    expect(again).to.deep.equal({ response: { status: 201, headers: {}, body: 'after expiry' }, replayed: false });
  });

  if (!transactional) return;

  it('rolls back the effect with its claim when it fails after writing', async () => {
    let writtenId = 0;
    await expect(
      subject.store.once(request(), async () => {
        writtenId = (await subject.repository.add(aProduct())).id;
        throw new Error('after the write');
      }),
    ).to.be.rejectedWith('after the write');
    expect(writtenId).to.be.greaterThan(0);
    expect(await subject.repository.findById(writtenId)).to.equal(undefined);
  });
}
