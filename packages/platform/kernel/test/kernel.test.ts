import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import sinon from 'sinon';
import {
  allowingOneCall,
  allValid,
  type IdempotencyClaim,
  IdempotencyKeyReusedError,
  type IdempotencyRecords,
  Invalid,
  runOnce,
  timeOrderedId,
  type UnitOfWork,
  ValidationError,
} from '../src';

chai.use(chaiAsPromised);
const { expect } = chai;

describe('allValid', () => {
  it('answers the values when every field parsed', () => {
    expect(allValid({ a: 1, b: 'x' })).to.deep.equal({ a: 1, b: 'x' });
  });

  it('names every field that did not, with why', () => {
    const error = (() => {
      try {
        allValid({ a: new Invalid('is wrong'), b: 2, c: new Invalid('is worse') });
      } catch (e) {
        return e;
      }
    })();
    expect(error)
      .to.be.instanceOf(ValidationError)
      .and.to.deep.include({ errors: { a: ['is wrong'], c: ['is worse'] }, code: 'VALIDATION_FAILED' });
  });
});

describe('allowingOneCall', () => {
  it('lets one method call through, across all the members, and refuses the next', () => {
    const guarded = allowingOneCall({ left: { go: () => 'left' }, right: { go: () => 'right', name: 'r' } });
    expect(guarded.right.name).to.equal('r');
    expect(guarded.left.go()).to.equal('left');
    expect(() => guarded.right.go()).to.throw(/second call \(go\)/);
  });
});

interface Tx {
  readonly idempotency: IdempotencyRecords;
}

/** A unit of work over scripted claims, to drive runOnce's retry logic alone. */
function scripted(claims: IdempotencyClaim[]) {
  const complete = sinon.spy(async (_request: unknown, _result: string) => {});
  const unitOfWork: UnitOfWork<Tx> = {
    run: async (work) =>
      work({ idempotency: { claim: async () => claims.shift()!, complete, find: async () => undefined } }),
  };
  return { unitOfWork, complete };
}

const text = { serialise: (value: string) => value, deserialise: (value: string) => value };
const request = { scope: 's', key: 'k', fingerprint: 'f' };

describe('runOnce', () => {
  it('runs the work and records its result when the key is claimed', async () => {
    const { unitOfWork, complete } = scripted([{ status: 'claimed' }]);
    expect(await runOnce(unitOfWork, request, text, async () => 'done')).to.deep.equal({
      value: 'done',
      replayed: false,
    });
    sinon.assert.calledOnceWithExactly(complete, request, 'done');
  });

  it('answers the recorded result without running the work, and refuses another fingerprint', async () => {
    const work = sinon.spy(async () => 'again');
    const { unitOfWork } = scripted([
      { status: 'recorded', fingerprint: 'f', result: 'first' },
      { status: 'recorded', fingerprint: 'other', result: 'first' },
    ]);
    expect(await runOnce(unitOfWork, request, text, work)).to.deep.equal({ value: 'first', replayed: true });
    await expect(runOnce(unitOfWork, request, text, work)).to.be.rejectedWith(IdempotencyKeyReusedError);
    sinon.assert.notCalled(work);
  });

  it('looks again while another transaction holds the key, then answers its result', async () => {
    const { unitOfWork } = scripted([
      { status: 'pending' },
      { status: 'pending' },
      { status: 'recorded', fingerprint: 'f', result: 'theirs' },
    ]);
    expect(await runOnce(unitOfWork, request, text, async () => 'mine')).to.deep.equal({
      value: 'theirs',
      replayed: true,
    });
  });

  it('records nothing when the work throws', async () => {
    const { unitOfWork, complete } = scripted([{ status: 'claimed' }]);
    await expect(runOnce(unitOfWork, request, text, async () => Promise.reject(new Error('boom')))).to.be.rejectedWith(
      'boom',
    );
    sinon.assert.notCalled(complete);
  });
});

describe('timeOrderedId', () => {
  const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  const millisecondsOf = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

  it("is a UUID version 7 carrying the milliseconds it was made at, when they are later than the last id's", () => {
    const at = millisecondsOf(timeOrderedId()) + 5;
    const id = timeOrderedId(at);
    expect(id).to.match(UUID_V7);
    expect(millisecondsOf(id)).to.equal(at);
  });

  it('sorts in the order the ids were made, within one millisecond and under a clock that stands still or steps back', () => {
    const now = Date.now() + 60_000;
    const ids = [
      ...Array.from({ length: 5000 }, () => timeOrderedId(now)),
      timeOrderedId(now - 1000),
      timeOrderedId(now + 1),
    ];
    expect(ids.every((id) => UUID_V7.test(id))).to.equal(true);
    expect([...ids].sort()).to.deep.equal(ids);
    expect(new Set(ids).size).to.equal(ids.length);
  });
});
