import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { type StoppableService, stopInOrder } from '../src/stop-in-order';

/** A process that says when it gets SIGINT, then exits 0 a moment later, or (stubborn) never. */
const SCRIPT = (stubborn: boolean) => `
  process.on('SIGINT', () => {
    console.log('signalled');
    ${stubborn ? '' : 'setTimeout(() => process.exit(0), 100);'}
  });
  setInterval(() => {}, 1000);
  console.log('ready');
`;

describe("start:system's stop", () => {
  let events: string[];
  let started: StoppableService[];
  beforeEach(() => {
    events = [];
    started = [];
  });
  afterEach(() => started.forEach((service) => service.child.kill('SIGKILL')));

  async function service(name: string, stubborn = false): Promise<StoppableService> {
    const child = spawn(process.execPath, ['-e', SCRIPT(stubborn)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<number | string>((resolve) => {
      child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown'));
    });
    void exited.then(() => events.push(`${name} exited`));
    await once(child.stdout, 'data');
    child.stdout.on('data', (chunk: Buffer) => {
      if (String(chunk).includes('signalled')) events.push(`${name} signalled`);
    });
    const running = { name, child, exited };
    started.push(running);
    return running;
  }

  it('signals each service only once the one before it has exited, in the order given', async () => {
    const services = [await service('gateway'), await service('sales'), await service('identity')];
    const endings = await stopInOrder(services, 'SIGINT', 20_000);
    expect(endings).to.deep.equal([0, 0, 0]);
    const inTurn = ['gateway', 'sales', 'identity'].flatMap((name) => [`${name} signalled`, `${name} exited`]);
    expect(events).to.deep.equal(inTurn);
  });

  it('kills a service that does not stop in its time, says which, and goes on to the next', async () => {
    const killed: string[] = [];
    const services = [await service('stubborn', true), await service('identity')];
    const endings = await stopInOrder(services, 'SIGINT', 300, (name) => killed.push(name));
    expect(endings).to.deep.equal(['SIGKILL', 0]);
    expect(killed).to.deep.equal(['stubborn']);
    expect(events.indexOf('stubborn exited')).to.be.below(events.indexOf('identity signalled'));
  });
});
