/**
 * Loaded with `--import` into a process under study (the gateway, by
 * gateway-memory.ts): every MEMORY_SAMPLE_MS it appends one JSON line to
 * MEMORY_SAMPLES_FILE with what V8 and Node hold, so a growing RSS can be
 * laid beside the heap. It changes nothing in the process it watches but
 * for a timer that does not keep it alive.
 */
import { appendFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const file = process.env.MEMORY_SAMPLES_FILE;
const everyMs = Number(process.env.MEMORY_SAMPLE_MS ?? 10_000);
const MiB = 1024 * 1024;
const started = Date.now();

if (file) {
  setInterval(() => {
    const usage = process.memoryUsage();
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((space) => [space.space_name, Math.round((space.space_size / MiB) * 10) / 10]),
    );
    const line = {
      minutes: (Date.now() - started) / 60_000,
      rss: usage.rss / MiB,
      heapTotal: usage.heapTotal / MiB,
      heapUsed: usage.heapUsed / MiB,
      external: usage.external / MiB,
      arrayBuffers: usage.arrayBuffers / MiB,
      spaces,
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  }, everyMs).unref();
}
