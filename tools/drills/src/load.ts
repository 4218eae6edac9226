import { randomUUID } from 'node:crypto';
import { sleep } from './cluster';

/** What a request came back with: its status, or the network error that stood for one. */
export type Outcome = { readonly status: number; readonly body?: unknown } | { readonly error: string };

export interface Tally {
  sent: number;
  /** Answered 2xx. */
  succeeded: number;
  /** Anything else: a status the drill did not expect, or no answer. */
  failed: number;
  /** The failures by status or error, for the report. */
  readonly failures: Record<string, number>;
}

export const tally = (): Tally => ({ sent: 0, succeeded: 0, failed: 0, failures: {} });

export function count(
  into: Tally,
  outcome: Outcome,
  expected: (status: number) => boolean = (status) => status >= 200 && status < 300,
): boolean {
  into.sent++;
  const ok = 'status' in outcome && expected(outcome.status);
  if (ok) into.succeeded++;
  else {
    into.failed++;
    // A problem's code beside its status says which layer refused (the gateway, a service, its database).
    const code = 'status' in outcome ? (outcome.body as { code?: unknown } | undefined)?.code : undefined;
    const key = 'status' in outcome ? `${outcome.status}${typeof code === 'string' ? ` ${code}` : ''}` : outcome.error;
    into.failures[key] = (into.failures[key] ?? 0) + 1;
  }
  return ok;
}

/** A JSON request, never throwing: the answer's status and parsed body, or the error that stood for one. */
export async function call(
  url: string,
  init: {
    method?: string;
    token?: string;
    body?: unknown;
    /** A form body instead of JSON (the payment provider speaks Stripe's API). */
    form?: Record<string, string>;
    headers?: Record<string, string>;
    timeoutMs?: number;
  } = {},
): Promise<Outcome> {
  try {
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      headers: {
        ...(init.token && { authorization: `Bearer ${init.token}` }),
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
        ...(init.form && { 'content-type': 'application/x-www-form-urlencoded' }),
        ...init.headers,
      },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
      ...(init.form && { body: new URLSearchParams(init.form) }),
      signal: AbortSignal.timeout(init.timeoutMs ?? 30_000),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: kept as text
    }
    return { status: response.status, body };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { error: cause ?? (error as Error).name ?? 'error' };
  }
}

/**
 * Runs `step` in `workers` loops until stopped: a steady stream of requests,
 * each worker waiting for its answer before the next (and `pauseMs` after it).
 */
export function steady(
  workers: number,
  pauseMs: number,
  step: (worker: number, i: number) => Promise<void>,
): { stop(): Promise<void> } {
  let running = true;
  const loops = Array.from({ length: workers }, async (_, worker) => {
    for (let i = 0; running; i++) {
      await step(worker, i);
      if (pauseMs > 0) await sleep(pauseMs);
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

export const key = () => randomUUID();

/** Asks `check` until it answers something other than undefined or false, or throws after `timeoutMs`. */

/** Runs `work` on every item, `concurrency` at a time; rejects with the first failure, after the others in flight. */
export async function inPool<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const results = await Promise.allSettled(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}

/** How often a drill asks again while it waits: its checks query the databases and the services, so not every 50 ms. */
export const DRILL_POLL_MS = 200;
