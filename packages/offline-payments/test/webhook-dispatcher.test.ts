import { expect } from 'chai';
import sinon from 'sinon';
import type { ChaosMode } from '../src/config';
import { backoffMs, type Delivery, WebhookDispatcher } from '../src/webhooks/webhook-dispatcher';
import type { WebhookEndpoint } from '../src/webhooks/webhook-endpoints';

const endpoint: WebhookEndpoint = {
  id: 'we_1',
  created: 0,
  url: 'http://127.0.0.1:1/webhooks',
  enabledEvents: ['*'],
  description: null,
  metadata: {},
  secret: 'whsec_test',
};
const delivery = (eventId: string): Delivery => ({
  eventId,
  eventType: 'payment_intent.succeeded',
  endpoint,
  payload: '{}',
});

describe('the webhook dispatcher', () => {
  let clock: sinon.SinonFakeTimers;
  beforeEach(() => (clock = sinon.useFakeTimers()));
  afterEach(() => clock.restore());

  /** A dispatcher whose attempts are recorded, each answering what `answers` says for its attempt number. */
  function dispatcher(chaos: ChaosMode[], answers: (n: number) => boolean = () => true) {
    const attempts: { eventId: string; at: number }[] = [];
    const dispatcher = new WebhookDispatcher({
      attempt: async ({ eventId }) => {
        attempts.push({ eventId, at: Date.now() });
        return answers(attempts.length);
      },
      retryFirstMs: 1_000,
      retryMaxMs: 60_000,
      chaos,
      chaosDelayMs: 2_000,
    });
    return { dispatcher, attempts };
  }

  it('backs off from the first wait, doubling, up to the cap', () => {
    expect([1, 2, 3, 6, 7, 50].map((retry) => backoffMs(retry, 1_000, 60_000))).to.deep.equal([
      1_000, 2_000, 4_000, 32_000, 60_000, 60_000,
    ]);
  });

  it('sends each event at once and retries it until it is taken', async () => {
    const { dispatcher: sender, attempts } = dispatcher([], (n) => n >= 4);
    sender.dispatch(delivery('evt_1'));
    await clock.tickAsync(1_000 + 2_000 + 4_000);
    expect(attempts.map((a) => a.at)).to.deep.equal([0, 1_000, 3_000, 7_000]);
    await clock.tickAsync(60_000);
    expect(attempts).to.have.length(4);
  });

  it('duplicate: sends every event twice', async () => {
    const { dispatcher: sender, attempts } = dispatcher(['duplicate']);
    sender.dispatch(delivery('evt_1'));
    await clock.tickAsync(0);
    expect(attempts.map((a) => a.eventId)).to.deep.equal(['evt_1', 'evt_1']);
  });

  it('counts the deliveries waiting (each copy, until a 2xx) and those delivered', async () => {
    const { dispatcher: sender } = dispatcher(['duplicate', 'delay'], (n) => n >= 3);
    sender.dispatch(delivery('evt_1'));
    expect(sender.counts).to.deep.equal({ waiting: 2, delivered: 0 });
    await clock.tickAsync(2_000);
    expect(sender.counts, 'both first attempts refused').to.deep.equal({ waiting: 2, delivered: 0 });
    await clock.tickAsync(1_000);
    expect(sender.counts).to.deep.equal({ waiting: 0, delivered: 2 });
  });

  it('delay: holds each event before its first attempt', async () => {
    const { dispatcher: sender, attempts } = dispatcher(['delay']);
    sender.dispatch(delivery('evt_1'));
    await clock.tickAsync(1_999);
    expect(attempts).to.deep.equal([]);
    await clock.tickAsync(1);
    expect(attempts).to.deep.equal([{ eventId: 'evt_1', at: 2_000 }]);
  });

  it('reorder: gathers an endpoint’s events and sends them newest first', async () => {
    const { dispatcher: sender, attempts } = dispatcher(['reorder']);
    for (const id of ['evt_1', 'evt_2', 'evt_3']) sender.dispatch(delivery(id));
    await clock.tickAsync(2_000);
    expect(attempts.map((a) => a.eventId)).to.deep.equal(['evt_3', 'evt_2', 'evt_1']);
  });

  it('all three: each event twice, newest first, late', async () => {
    const { dispatcher: sender, attempts } = dispatcher(['duplicate', 'reorder', 'delay']);
    sender.dispatch(delivery('evt_1'));
    sender.dispatch(delivery('evt_2'));
    await clock.tickAsync(3_999);
    expect(attempts).to.deep.equal([]);
    await clock.tickAsync(1);
    expect(attempts.map((a) => a.eventId)).to.deep.equal(['evt_2', 'evt_2', 'evt_1', 'evt_1']);
  });

  it('stops retrying once stopped', async () => {
    const { dispatcher: sender, attempts } = dispatcher([], () => false);
    sender.dispatch(delivery('evt_1'));
    await clock.tickAsync(0);
    sender.stop();
    await clock.tickAsync(120_000);
    expect(attempts).to.have.length(1);
  });
});
