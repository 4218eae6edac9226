import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A receiver on loopback that times each stock.level.changed from its movement's time to its arrival. */
export interface LagReceiver {
  readonly url: string;
  /** Arrival − the event's timestamp, per delivery, in milliseconds. */
  readonly lagsMs: number[];
  close(): Promise<void>;
}

/**
 * The event's timestamp is the movement's time, read in its transaction just before it commits: the lag measured is
 * the commit, the fan-out's poll, the claim and the POST, at most the transaction's own duration more than from the
 * commit itself. Both clocks are this machine's.
 */
export async function startLagReceiver(): Promise<LagReceiver> {
  const lagsMs: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const arrived = Date.now();
      const { timestamp } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
      lagsMs.push(arrived - Date.parse(timestamp));
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/lag`,
    lagsMs,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Subscribes `url` to stock.level.changed on the service at `base`. */
export async function subscribeForLag(base: string, url: string, token?: string): Promise<void> {
  const answer = await fetch(`${base}/api/webhook-subscriptions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ url, events: ['stock.level.changed'] }),
  });
  if (answer.status !== 201) throw new Error(`The webhook subscription was refused: ${answer.status}.`);
}

/** Waits until no delivery arrived for `quietMs`: what the load wrote has been delivered (or is stuck). */
export async function settledDeliveries(receiver: LagReceiver, quietMs = 2_000): Promise<void> {
  for (let seen = -1; seen !== receiver.lagsMs.length;) {
    seen = receiver.lagsMs.length;
    await new Promise((resolve) => setTimeout(resolve, quietMs));
  }
}

/** The `q` quantile of `values` (nearest rank). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}
