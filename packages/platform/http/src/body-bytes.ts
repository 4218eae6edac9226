import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import getRawBody from 'raw-body';
import { RequestError } from './request-error';

type Decoder = (encoded: Buffer, options: { maxOutputLength: number }) => Promise<Buffer>;

/** The content codings a body may come in (RFC 9110 §8.4.1), by lower-case name. */
const DECODERS: ReadonlyMap<string, Decoder | undefined> = new Map<string, Decoder | undefined>([
  ['identity', undefined],
  ['gzip', promisify(zlib.gunzip)],
  ['deflate', promisify(zlib.inflate)],
  ['br', promisify(zlib.brotliDecompress)],
]);

/**
 * The request's Content-Encoding as a key of the decoders, or undefined when this service cannot read it (a list
 * included).
 */
export function contentCodingOf(header: string): string | undefined {
  const coding = header.trim().toLowerCase() || 'identity';
  return DECODERS.has(coding) ? coding : undefined;
}

function tooLarge(limit: number): RequestError {
  return new RequestError(
    'PAYLOAD_TOO_LARGE',
    `The request body is larger than ${limit % 1024 === 0 ? `${limit / 1024} KiB` : `${limit} bytes`}.`,
  );
}

/**
 * The body's bytes once decoded, at most `limit` of them both as sent and as
 * decoded: a small gzip bomb stops at `limit`, never inflated whole. Read here
 * rather than through koa-bodyparser, which limits decoded bytes only (ADR 0020).
 */
export async function bodyBytes(request: IncomingMessage, coding: string, limit: number): Promise<Buffer> {
  let encoded: Buffer;
  try {
    // With the declared length, a body announced as too large is refused before a byte is read.
    encoded = await getRawBody(request, { limit, length: request.headers['content-length'] });
  } catch (error) {
    const { status, type } = error as { status?: number; type?: string };
    if (type === 'entity.too.large') throw tooLarge(limit);
    if (status !== undefined && status >= 500) throw error; // raw-body's own misuse: a bug here, not the client's
    // Aborted, cut short, reset: the client's doing, and most likely gone.
    throw new RequestError('MALFORMED_JSON', 'The request body could not be read.');
  }
  const decode = DECODERS.get(coding);
  if (!decode || encoded.length === 0) return encoded;
  try {
    return await decode(encoded, { maxOutputLength: limit });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limit);
    throw new RequestError('MALFORMED_JSON', `The request body could not be decoded as ${coding}.`);
  }
}
