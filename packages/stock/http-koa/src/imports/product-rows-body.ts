import { ValidationError } from '@platform/kernel';
import { RequestError } from '@platform/http';
import { type ImportRow, PRODUCT_COLUMNS, type ProductColumn, UnreadableRow } from '@stock/application';
import { CsvError, parse } from 'csv-parse';
import type { Context } from 'koa';
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline, type Readable, Transform } from 'node:stream';
import { pipeline as pipelineAsync } from 'node:stream/promises';
import zlib from 'node:zlib';

/** The largest import body taken, as sent (compressed when it is): a million rows of CSV are some 60 MiB. */
export const MAX_IMPORT_BYTES = 1024 * 1024 * 1024;

/** The longest row an import reads (characters of CSV, bytes of an NDJSON line): a product's fields fit many times. */
export const MAX_ROW_LENGTH = 64 * 1024;

export const CSV = 'text/csv';
export const NDJSON = 'application/x-ndjson';

const COLUMNS: ReadonlySet<string> = new Set(PRODUCT_COLUMNS);
const DECODERS: ReadonlyMap<string, (() => Transform) | undefined> = new Map([
  ['identity', undefined],
  ['gzip', () => zlib.createGunzip()],
  ['deflate', () => zlib.createInflate()],
  ['br', () => zlib.createBrotliDecompress()],
]);

/** An import's body as rows: read as they arrive, a row at a time, never the body whole. */
export interface RowsBody {
  readonly rows: AsyncIterable<ImportRow | UnreadableRow>;
  /** The digest of every byte read (decoded): complete once `rows` is. */
  readonly fingerprint: () => string;
}

function unsupported(detail: string): RequestError {
  return new RequestError('UNSUPPORTED_MEDIA_TYPE', detail);
}

function tooLong(row: number): RequestError {
  return new RequestError('PAYLOAD_TOO_LARGE', `Row ${row} is longer than ${MAX_ROW_LENGTH / 1024} KiB.`);
}

function unknownColumns(names: readonly string[], what: 'column' | 'field'): ValidationError {
  return new ValidationError(
    Object.fromEntries(names.map((name) => [name, [`is not a ${what} of an import (${PRODUCT_COLUMNS.join(', ')})`]])),
  );
}

/**
 * The body's bytes, decoded from its Content-Encoding, with every byte passed
 * through `hash` on the way and, when asked, checked to be UTF-8 (csv-parse
 * would read a bad sequence as U+FFFD and store it).
 */
function decodedBody(ctx: Context, source: Readable, hash: Hash, checkUtf8: boolean): Readable {
  const coding = ctx.get('Content-Encoding').trim().toLowerCase() || 'identity';
  if (!DECODERS.has(coding))
    throw unsupported('The body must use one content coding of gzip, deflate, br or identity, or none.');
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      try {
        if (checkUtf8) utf8.decode(chunk, { stream: true });
      } catch {
        done(new ValidationError({ body: ['is not valid UTF-8'] }));
        return;
      }
      done(null, chunk);
    },
    flush(done) {
      try {
        if (checkUtf8) utf8.decode();
        done();
      } catch {
        done(new ValidationError({ body: ['is not valid UTF-8 (it ends inside a character)'] }));
      }
    },
  });
  const decoder = DECODERS.get(coding)?.();
  decoder?.on('error', (error) => {
    (error as { decoding?: string }).decoding = coding;
  });
  // pipeline, not pipe: a client that goes away (or a body that is not gzip) ends the rows with an error, not a hang.
  return decoder ? pipeline(source, decoder, tap, () => {}) : pipeline(source, tap, () => {});
}

/** What reading the body failed with, as the client is told of it. */
function readingError(error: unknown): unknown {
  const decoding = (error as { decoding?: string }).decoding;
  if (decoding) return new ValidationError({ body: [`is not ${decoding} (Content-Encoding)`] });
  return error;
}

/** A CSV body: a header row naming only import columns, each once, then one product (at a location) per record. */
async function* csvRows(body: Readable): AsyncGenerator<ImportRow | UnreadableRow> {
  const parser = parse({
    bom: true,
    max_record_size: MAX_ROW_LENGTH,
    relax_column_count: true,
    skip_empty_lines: true,
  });
  pipeline(body, parser, () => {});
  let header: readonly ProductColumn[] | undefined;
  let row = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (!header) {
        header = csvHeader(record);
        continue;
      }
      row += 1;
      if (record.length !== header.length) {
        yield new UnreadableRow([`has ${record.length} cells where the header has ${header.length}`]);
        continue;
      }
      yield Object.fromEntries(header.map((column, index) => [column, record[index]]));
    }
  } catch (error) {
    if (!(error instanceof CsvError)) throw readingError(error);
    if (error.code === 'CSV_MAX_RECORD_SIZE') throw tooLong(row + 1);
    throw new ValidationError({ body: [`row ${row + 1} is not valid CSV: ${error.message}`] });
  }
  if (!header) throw new RequestError('BODY_REQUIRED', 'A CSV body starts with a header row naming its columns.');
}

function csvHeader(names: readonly string[]): ProductColumn[] {
  const unknown = names.filter((name) => !COLUMNS.has(name));
  if (unknown.length > 0) throw unknownColumns(unknown, 'column');
  const repeated = names.filter((name, index) => names.indexOf(name) !== index);
  if (repeated.length > 0)
    throw new ValidationError(Object.fromEntries(repeated.map((name) => [name, ['is a column more than once']])));
  return names as ProductColumn[];
}

/** An NDJSON line's object as cells: strings as they are, numbers as JSON wrote them, null as an empty cell. */
function ndjsonCells(value: unknown, first: boolean): ImportRow | UnreadableRow {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return new UnreadableRow(['must be a JSON object']);
  const fields = Object.keys(value);
  const unknown = fields.filter((field) => !COLUMNS.has(field));
  // The first line decides, as a CSV's header does, before any row is applied; a later one fails alone.
  if (unknown.length > 0 && first) throw unknownColumns(unknown, 'field');
  if (unknown.length > 0) return new UnreadableRow(unknown.map((field) => `${field}: is not a field of an import`));
  const cells: Record<string, string> = {};
  const problems: string[] = [];
  for (const [field, cell] of Object.entries(value as Record<string, unknown>)) {
    if (typeof cell === 'string') cells[field] = cell;
    else if (typeof cell === 'number') cells[field] = String(cell);
    else if (cell !== null) problems.push(`${field}: must be a string, a number or null`);
  }
  return problems.length > 0 ? new UnreadableRow(problems) : cells;
}

async function* rethrowing(body: Readable): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) yield chunk;
  } catch (error) {
    throw readingError(error);
  }
}

/** The lines of a body, each at most MAX_ROW_LENGTH bytes: a longer one stops the import. */
async function* lines(body: Readable): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let length = 0;
  let count = 0;
  for await (const chunk of rethrowing(body)) {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      if (length + end - start > MAX_ROW_LENGTH) throw tooLong(count + 1);
      yield Buffer.concat([...pending, chunk.subarray(start, end)]);
      count += 1;
      pending = [];
      length = 0;
      start = end + 1;
    }
    length += chunk.length - start;
    if (length > MAX_ROW_LENGTH) throw tooLong(count + 1);
    pending.push(chunk.subarray(start));
  }
  if (length > 0) yield Buffer.concat(pending);
}

/** An NDJSON body: one JSON object per line; blank lines are skipped, a line that is not JSON fails alone. */
async function* ndjsonRows(body: Readable): AsyncGenerator<ImportRow | UnreadableRow> {
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let first = true;
  for await (const line of lines(body)) {
    let text: string;
    try {
      text = utf8.decode(line);
    } catch {
      yield new UnreadableRow(['is not valid UTF-8']);
      continue;
    }
    if (text.trim() === '') continue;
    try {
      yield ndjsonCells(JSON.parse(text), first);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      yield new UnreadableRow([`is not JSON: ${error.message}`]);
    }
    first = false;
  }
}

/**
 * The request's body, taken whole into a file of its own before any row is
 * read: the server's REQUEST_TIMEOUT_MS then bounds the upload only, not the
 * import, which reads its rows from the file at the pace they apply (a body
 * read at that pace would take as long as the import to arrive, and be cut off
 * with a 408). Memory stays bounded either way. The file is removed once the
 * rows have been read, or when reading them stops.
 */
async function spooled(ctx: Context): Promise<{ readonly source: Readable; remove(): Promise<void> }> {
  const folder = await mkdtemp(join(tmpdir(), 'stock-import-'));
  const remove = () => rm(folder, { recursive: true, force: true });
  const file = join(folder, 'body');
  let bytes = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > MAX_IMPORT_BYTES)
        done(new RequestError('PAYLOAD_TOO_LARGE', `An import body is at most ${MAX_IMPORT_BYTES / 2 ** 30} GiB.`));
      else done(null, chunk);
    },
  });
  try {
    await pipelineAsync(ctx.req, limit, createWriteStream(file));
  } catch (error) {
    await remove();
    throw error;
  }
  const source = createReadStream(file);
  source.once('close', () => void remove());
  return { source, remove };
}

/**
 * The rows of an import's body, CSV or NDJSON by Content-Type (UTF-8): koa's
 * body parsers never see it. It is taken into a file first (spooled), then
 * read from there a row at a time. The first row (a CSV's header, an NDJSON
 * body's first line) is read before this answers, so unknown columns are a
 * 400 before any row is applied.
 */
export async function rowsBody(ctx: Context, fingerprintOf: string): Promise<RowsBody> {
  const type = ctx.is(CSV, NDJSON);
  if (!type) throw unsupported(`The body must be ${CSV} (a header row, then a product per row) or ${NDJSON}.`);
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(ctx.get('Content-Type'))?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
    throw unsupported(`The body must be UTF-8 (charset=utf-8, or none), not charset=${charset}.`);
  if (!DECODERS.has(ctx.get('Content-Encoding').trim().toLowerCase() || 'identity'))
    throw unsupported('The body must use one content coding of gzip, deflate, br or identity, or none.');
  const hash = createHash('sha256').update(fingerprintOf);
  const { source } = await spooled(ctx);
  const body = decodedBody(ctx, source, hash, type === CSV);
  const iterator = (type === CSV ? csvRows(body) : ndjsonRows(body))[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* rows(): AsyncGenerator<ImportRow | UnreadableRow> {
    if (first.done) return;
    yield first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  let digest: string | undefined;
  return { rows: rows(), fingerprint: () => (digest ??= hash.digest('hex')) };
}
