import http from 'node:http';

export interface LatencySummary {
  readonly requests: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
}

/** The value below which `fraction` of the sorted samples fall (nearest rank). */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) throw new Error('no samples');
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

/**
 * Sends GETs at a fixed rate for `seconds`, open loop: requests go out on
 * schedule whether or not earlier ones have been answered, and each latency
 * runs from the moment the request was issued, waiting for a free connection
 * included, so a stall is charged to every request it delays. Measured to the
 * microsecond, where autocannon reports whole milliseconds.
 */
export async function pacedLatency(
  base: string,
  path: () => string,
  { rate, seconds, headers = {} }: { rate: number; seconds: number; headers?: Record<string, string> },
): Promise<LatencySummary> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const total = Math.round(rate * seconds);
  const samples: number[] = [];
  const failures: string[] = [];
  const get = () =>
    new Promise<void>((resolve) => {
      const issued = performance.now();
      const request = http.get(`${base}${path()}`, { agent, headers }, (response) => {
        response.resume();
        response.on('end', () => {
          if (response.statusCode === 200) samples.push(performance.now() - issued);
          else failures.push(`status ${response.statusCode}`);
          resolve();
        });
      });
      request.on('error', (error) => {
        failures.push(String(error));
        resolve();
      });
    });
  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  for (let sent = 0; sent < total;) {
    const now = performance.now();
    for (; sent < total && start + (sent * 1000) / rate <= now; sent++) inFlight.push(get());
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  agent.destroy();
  if (failures.length > 0) throw new Error(`${failures.length} of ${total} requests failed, first: ${failures[0]}`);
  samples.sort((a, b) => a - b);
  const ms = (value: number) => Math.round(value * 1000) / 1000;
  return {
    requests: samples.length,
    p50Ms: ms(percentile(samples, 0.5)),
    p90Ms: ms(percentile(samples, 0.9)),
    p99Ms: ms(percentile(samples, 0.99)),
  };
}
