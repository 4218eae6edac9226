import { adminQuery, databaseUrl } from '@platform/test-kit';
import { Readable } from 'node:stream';
import { rssMiB, startTarget, stop } from './target-process';

/** The bounds: a million rows within a 128 MiB heap, in under five minutes on this machine. */
export const IMPORT_HEAP_MIB = 128;
export const IMPORT_TARGET_SECONDS = 300;

export interface ImportScaleResult {
  readonly rows: number;
  readonly seconds: number;
  readonly rowsPerSecond: number;
  readonly rssPeakMiB: number;
  readonly heapMiB: number;
  readonly targetSeconds: number;
  /** Scaled to a million rows when fewer were run (a straight line: an estimate, said as one). */
  readonly metTarget: boolean;
}

/** A CSV of `rows` new products, each with stock at the default location, made as it is sent. */
async function* productsCsv(rows: number): AsyncGenerator<string> {
  yield 'sku,name,description,price,onHand,lowStockThreshold\n';
  for (let start = 0; start < rows; start += 1000) {
    let chunk = '';
    for (let i = start; i < Math.min(rows, start + 1000); i++)
      chunk += `SCALE-${i},Scale product ${i},"Imported, at scale",${((100 + (i % 100_000)) / 100).toFixed(2)},${i % 100},5\n`;
    yield chunk;
  }
}

/**
 * Imports `rows` CSV rows into a fresh PostgreSQL database through POST
 * /api/product-imports, one request, into a service whose heap is capped at
 * IMPORT_HEAP_MIB: the time, rows per second and the server's peak RSS,
 * against the five-minute target for a million.
 */
export async function importAtScale(rows: number, log: (line: string) => void): Promise<ImportScaleResult> {
  const name = 'stock_scale_import';
  await adminQuery(`drop database if exists "${name}" with (force)`);
  await adminQuery(`create database "${name}"`);
  const { child, base } = await startTarget('service.ts', databaseUrl(name), '10', {}, [
    `--max-old-space-size=${IMPORT_HEAP_MIB}`,
  ]);
  try {
    let rssPeakMiB = rssMiB(child.pid!);
    const sampler = setInterval(() => (rssPeakMiB = Math.max(rssPeakMiB, rssMiB(child.pid!))), 50);
    const started = performance.now();
    const response = await fetch(`${base}/api/product-imports`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: Readable.toWeb(Readable.from(productsCsv(rows))) as ReadableStream,
      duplex: 'half',
    });
    const answer = (await response.json()) as { created?: number; failed?: number };
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    if (response.status !== 200 || answer.created !== rows)
      throw new Error(`the import answered ${response.status} ${JSON.stringify(answer).slice(0, 500)}`);
    const rowsPerSecond = Math.round(rows / seconds);
    const millionSeconds = (1_000_000 / rows) * seconds;
    const result = {
      rows,
      seconds,
      rowsPerSecond,
      rssPeakMiB,
      heapMiB: IMPORT_HEAP_MIB,
      targetSeconds: IMPORT_TARGET_SECONDS,
      metTarget: millionSeconds < IMPORT_TARGET_SECONDS,
    };
    log(
      `  imported ${rows.toLocaleString('en')} rows in ${seconds.toFixed(1)} s (${rowsPerSecond.toLocaleString('en')} rows/s), peak RSS ${rssPeakMiB.toFixed(0)} MiB with the heap capped at ${IMPORT_HEAP_MIB} MiB`,
    );
    return result;
  } finally {
    await stop(child);
    await adminQuery(`drop database if exists "${name}" with (force)`).catch(() => undefined);
  }
}

/** The import's lines of the report: the figures, and the target met or missed, said plainly. */
export function importReport(result: ImportScaleResult): string {
  const n = result.rows.toLocaleString('en');
  const verdict = result.metTarget
    ? `met: a million rows at this rate take ${(1_000_000 / result.rowsPerSecond / 60).toFixed(1)} min`
    : `MISSED: a million rows at this rate take ${(1_000_000 / result.rowsPerSecond / 60).toFixed(1)} min`;
  return [
    `| POST /api/product-imports, CSV, PostgreSQL | ${n} rows |`,
    '| --- | ---: |',
    `| time | ${result.seconds.toFixed(1)} s |`,
    `| rows per second | ${result.rowsPerSecond.toLocaleString('en')} |`,
    `| server peak RSS (heap capped at ${result.heapMiB} MiB) | ${result.rssPeakMiB.toFixed(0)} MiB |`,
    `| target: 1,000,000 rows in under ${result.targetSeconds / 60} min | ${verdict}${result.rows < 1_000_000 ? ' (scaled from fewer rows)' : ''} |`,
  ].join('\n');
}
