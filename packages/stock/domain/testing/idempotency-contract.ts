import {
  IdempotencyKeyReusedError,
  type IdempotentRequest,
  recordedResult,
  type ResultFormat,
  runOnce,
} from '@platform/kernel';
import type { StockTransaction } from '../src';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import sinon from 'sinon';
import { aContext, aProduct } from './builders';
import type { OpenStockStore, StockStoreUnderTest } from './stock-store';

chai.use(chaiAsPromised);
const { expect } = chai;

/** How long the records of the store under test live, by the clock it is given. */
export const CONTRACT_TTL_MS = 60_000;

const text: ResultFormat<string> = { serialise: (value) => value, deserialise: (value) => value };

/** What runOnce promises on every store's idempotency records and unit of work; `open` must use CONTRACT_TTL_MS. */
export function idempotencyContract(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  let clock = 1_000_000;
  let sequence = 0;
  const request = (fingerprint = 'payload-a'): IdempotentRequest => ({
    scope: 'create-product',
    key: `key-${sequence}`,
    fingerprint,
  });
  const once = (req: IdempotentRequest, work: (tx: StockTransaction) => Promise<string>) =>
    runOnce(store.unitOfWork, req, text, work);
  const created = async (tx: StockTransaction) => String((await tx.products.add(aProduct(), aContext())).id);

  before(async function () {
    store = await open(this, () => clock);
  });
  beforeEach(() => {
    sequence += 1;
  });
  after(async () => store?.close());

  it('runs the work once and answers repeats with the recorded result', async () => {
    const work = sinon.spy(created);
    const first = await once(request(), work);
    const second = await once(request(), work);
    expect(first.replayed).to.equal(false);
    expect(second).to.deep.equal({ value: first.value, replayed: true });
    sinon.assert.calledOnce(work);
  });

  it('refuses the same key with another payload', async () => {
    await once(request('payload-a'), created);
    await expect(once(request('payload-b'), created)).to.be.rejectedWith(IdempotencyKeyReusedError);
  });

  it('keeps keys of different scopes apart', async () => {
    const a = await once(request(), async () => 'a');
    const b = await once({ ...request(), scope: 'adjust-stock' }, async () => 'b');
    expect([a.value, b.value, b.replayed]).to.deep.equal(['a', 'b', false]);
  });

  it('records nothing when the work fails, so a retry runs it again', async () => {
    await expect(once(request(), async () => Promise.reject(new Error('boom')))).to.be.rejectedWith('boom');
    const retry = await once(request(), async () => 'second try');
    expect(retry).to.deep.equal({ value: 'second try', replayed: false });
  });

  it('rolls the work back with its claim when it fails after writing', async () => {
    let writtenId = 0;
    const failing = once(request(), async (tx) => {
      writtenId = (await tx.products.add(aProduct(), aContext())).id;
      throw new Error('after the write');
    });
    await expect(failing).to.be.rejectedWith('after the write');
    expect(writtenId).to.be.greaterThan(0);
    expect(await store.products.findById(writtenId)).to.equal(undefined);
  });

  it('runs the work once when repeats arrive together', async () => {
    const work = sinon.spy(created);
    const results = await Promise.all(Array.from({ length: 10 }, () => once(request(), work)));
    sinon.assert.calledOnce(work);
    expect(results.filter((r) => !r.replayed)).to.have.length(1);
    expect(new Set(results.map((r) => r.value)).size).to.equal(1);
  });

  it('reads a recorded result without claiming its key: nothing before the work ran, the result after, a refusal for another payload, nothing once expired', async () => {
    const recorded = (req: IdempotentRequest) => recordedResult(store.unitOfWork, req, text);
    expect(await recorded(request())).to.equal(undefined);
    expect(await once(request(), async () => 'made'), 'the read claimed nothing').to.deep.equal({
      value: 'made',
      replayed: false,
    });
    expect(await recorded(request())).to.deep.equal({ value: 'made', replayed: true });
    await expect(recorded(request('payload-b'))).to.be.rejectedWith(IdempotencyKeyReusedError);
    clock += CONTRACT_TTL_MS + 1;
    expect(await recorded(request())).to.equal(undefined);
  });

  it('forgets a key once its record expires', async () => {
    await once(request(), async () => 'first');
    clock += CONTRACT_TTL_MS + 1;
    const again = await once(request('another payload'), async () => 'after expiry');
    expect(again).to.deep.equal({ value: 'after expiry', replayed: false });
  });
}
