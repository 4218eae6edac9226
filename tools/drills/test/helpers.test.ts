import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { spawn } from 'node:child_process';
import { distinctPorts, Instance, lines, sleep } from '../src/cluster';
import { transitions } from '../src/drills/postgres-restart';
import { MAX_SLOPE_MIB_PER_MINUTE, type MemorySample, memorySlopes, slope } from '../src/drills/soak';
import { inPool } from '../src/load';

chai.use(chaiAsPromised);
const { expect } = chai;

describe('the drills’ helpers', () => {
  it('distinctPorts: never hands out a port twice, however often the draw repeats one', async () => {
    const draws = [5001, 5001, 5002, 5001, 5003];
    const next = distinctPorts(async () => draws.shift()!);
    expect([await next(), await next(), await next()]).to.deep.equal([5001, 5002, 5003]);
  });

  it('slope: the least-squares MiB per minute of RSS samples; flat or a single sample is 0', () => {
    expect(
      slope([
        [0, 100],
        [1, 102],
        [2, 104],
        [3, 106],
      ]),
    ).to.be.closeTo(2, 1e-9);
    expect(
      slope([
        [0, 100],
        [1, 99],
        [2, 101],
        [3, 100],
      ]),
    ).to.be.closeTo(0.2, 1e-9);
    expect(slope([[1, 150]])).to.equal(0);
    expect(
      slope([
        [1, 150],
        [1, 160],
      ]),
    ).to.equal(0);
  });

  it('memorySlopes: a young generation resized from 4 to 32 MiB is no growth; a steady 3 MiB/min outside it is', () => {
    // Ten minutes sampled every 10 s, as the full soak does, judged after the first third.
    const minutes = Array.from({ length: 60 }, (_, i) => (i + 1) / 6);
    const sample = (at: number, youngMiB: number, otherMiB: number): MemorySample => ({
      at,
      youngMiB,
      rssMiB: otherMiB + youngMiB,
    });
    // What the gateway did (docs/operations.md): RSS steps up 28 MiB when V8 grows its young generation, nothing else
    // moves.
    const resized = memorySlopes(
      minutes.map((at) => sample(at, at < 6 ? 4 : 32, 105 + Math.sin(at * 7))),
      10 / 3,
    );
    expect(resized.rss).to.be.above(MAX_SLOPE_MIB_PER_MINUTE);
    expect(Math.abs(resized.outsideYoung)).to.be.below(0.5);
    const leaking = memorySlopes(
      minutes.map((at) => sample(at, 16, 105 + 3 * at)),
      10 / 3,
    );
    expect(leaking.outsideYoung).to.be.closeTo(3, 1e-9);
    expect(leaking.rss).to.be.closeTo(3, 1e-9);
  });

  it('transitions: the readiness answers in order, repeats collapsed', () => {
    expect(
      transitions([
        [1, true],
        [2, true],
        [3, false],
        [4, false],
        [5, true],
      ]),
    ).to.equal('200 → 503 → 200');
    expect(
      transitions([
        [1, true],
        [2, true],
      ]),
    ).to.equal('200');
    expect(transitions([])).to.equal('');
  });

  it('lines: whole lines out of chunks that cut them anywhere, blank lines dropped', () => {
    const seen: string[] = [];
    const feed = lines((line) => seen.push(line));
    feed('{"message":"a"}\n{"mess');
    feed(Buffer.from('age":"b"}\n\n{"message"'));
    feed(':"c"}\n');
    expect(seen).to.deep.equal(['{"message":"a"}', '{"message":"b"}', '{"message":"c"}']);
  });

  it('inPool: every item, never more than `concurrency` at once, and the first failure after the others in flight', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await inPool([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      most = Math.max(most, ++running);
      await sleep(5);
      running--;
      done.push(item);
    });
    expect(done.sort()).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
    expect(most).to.equal(3);
    await expect(
      inPool([1, 2], 2, async (item) => {
        if (item === 2) throw new Error('two failed');
      }),
    ).to.be.rejectedWith('two failed');
  });

  it('Instance.stop: a process that ignores SIGTERM is killed after the bound, and the answer says so', async function () {
    this.timeout(10_000);
    const instance = new Instance('stock', 'stubborn', 0, {});
    instance.child = spawn(
      process.execPath,
      ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); console.log('up')"],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    await new Promise((resolve) => instance.child!.stdout!.once('data', resolve));
    const answer = await instance.stop('SIGTERM', 300);
    expect(answer).to.match(/did not exit within 300 ms of SIGTERM: killed \(SIGKILL\)/);
    expect(instance.child.signalCode).to.equal('SIGKILL');
    expect(await instance.stop()).to.equal('SIGKILL');
  });
});
