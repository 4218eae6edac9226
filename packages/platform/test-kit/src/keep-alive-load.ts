import { expect } from 'chai';
import http from 'node:http';

export interface StopUnderLoad {
  readonly port: number;
  readonly path: string;
  /** Sends the signal that starts the stop: called once, mid-load. */
  readonly stop: () => void;
  /** Sends it once this many requests were answered 200: a count, not a time, so that a slow machine sends as many. */
  readonly stopAfter: number;
}

/**
 * A keep-alive GET on `agent`: its status, or the error's code (ECONNREFUSED: a new connection refused, nothing sent).
 */
function outcomeOf(agent: http.Agent, port: number, path: string): Promise<string> {
  return new Promise<string>((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path, agent }, (response) =>
        response.resume().on('end', () => resolve(`status ${response.statusCode}`)),
      )
      .on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/**
 * 32 keep-alive clients call the server directly, with no balancer and no
 * readiness: each sends until the server refuses it a new connection (or 3000
 * requests, a bound), and `stop` is called mid-load. Answers how many requests
 * ended each way ('status 200', 'ECONNREFUSED', anything else a cut), and how
 * many were answered after the stop began.
 */
export async function callDirectlyThroughStop({
  port,
  path,
  stop,
  stopAfter,
}: StopUnderLoad): Promise<{ outcomes: Record<string, number>; stopped: boolean; answeredAfterStop: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const outcomes: Record<string, number> = {};
  let answered = 0;
  let answeredAfterStop = 0;
  let stopped = false;
  const clients = Array.from({ length: 32 }, async () => {
    for (let i = 0; i < 3000; i++) {
      const outcome = await outcomeOf(agent, port, path);
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      if (outcome === 'ECONNREFUSED') return;
      if (outcome !== 'status 200') continue;
      if (stopped) answeredAfterStop += 1;
      else if (++answered === stopAfter) {
        stopped = true;
        stop();
      }
    }
  });
  await Promise.all(clients);
  agent.destroy();
  return { outcomes, stopped, answeredAfterStop };
}

/**
 * 32 keep-alive clients behind a load balancer's view of the server: they send
 * while `/health/ready` answers 200 (polled every 50 ms) and stop once it does
 * not; `stop` is called mid-load. Answers how many were sent and every failure.
 */
export async function callBehindReadinessThroughStop({
  port,
  path,
  stop,
  stopAfter,
}: StopUnderLoad): Promise<{ sent: number; stopped: boolean; failures: string[] }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const get = (target: string) =>
    new Promise<number>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: target, agent }, (response) =>
          response.resume().on('end', () => resolve(response.statusCode!)),
        )
        .on('error', reject);
    });
  let routing = true;
  const watcher = (async () => {
    while (routing) {
      routing = (await get('/health/ready').catch(() => 503)) === 200;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  let sent = 0;
  let answered = 0;
  let stopped = false;
  const failures: string[] = [];
  const clients = Array.from({ length: 32 }, async () => {
    while (routing) {
      sent += 1;
      await get(path).then(
        (status) => (status === 200 ? (answered += 1) : failures.push(`status ${status}`)),
        (error: Error) => failures.push(error.message),
      );
      if (answered >= stopAfter && !stopped) {
        stopped = true;
        stop();
      }
    }
  });
  await Promise.all([watcher, ...clients]);
  agent.destroy();
  return { sent, stopped, failures };
}

/**
 * callDirectlyThroughStop, and what a service stopped by the platform owes its clients: every request answered 200
 * until each client is refused a new connection, more than a thousand of them, some after the stop began.
 */
export async function expectServedThroughStop(load: StopUnderLoad): Promise<void> {
  const { outcomes, stopped, answeredAfterStop } = await callDirectlyThroughStop(load);
  expect(stopped, 'the stop was sent mid-load').to.equal(true);
  const { 'status 200': ok = 0, ECONNREFUSED: refused = 0, ...failures } = outcomes;
  expect(failures, 'every request was answered 200 or refused a new connection').to.deep.equal({});
  expect(refused, 'each client ended refused').to.equal(32);
  expect(ok).to.be.greaterThan(1000);
  expect(answeredAfterStop, 'requests kept being answered after the stop began').to.be.greaterThan(0);
}
