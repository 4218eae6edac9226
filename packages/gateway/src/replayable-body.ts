import type { Readable } from 'node:stream';

/** The request body is larger than the gateway forwards. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The request body is larger than ${limit} bytes.`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * A request body forwarded as it arrives, chunk by chunk, never buffered
 * whole before it is sent, and counted against the limit as it goes. When the
 * request may be retried on another instance, the chunks already sent are
 * kept (at most `limit` bytes), so a second attempt replays them and then
 * carries on reading where the first stopped.
 */
export class ReplayableBody {
  private readonly kept: Buffer[] = [];
  private readonly source: AsyncIterator<Buffer, undefined>;
  private bytes = 0;
  private done = false;
  /** Whether any attempt has read from the client yet (before that, any failure can be retried). */
  started = false;

  constructor(
    stream: Readable,
    private readonly limit: number,
    private readonly keep: boolean,
  ) {
    this.source = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer, undefined>;
  }

  /** Whether a new attempt can send the whole body again: nothing was read yet, or everything read was kept. */
  get replayable(): boolean {
    return !this.started || this.keep;
  }

  /** The body for one attempt: what earlier attempts read, then the rest as it arrives. */
  async *chunks(): AsyncGenerator<Buffer> {
    this.started = true;
    yield* this.kept;
    while (!this.done) {
      const { value, done } = await this.source.next();
      if (done) {
        this.done = true;
        return;
      }
      this.bytes += value.length;
      if (this.bytes > this.limit) throw new BodyTooLargeError(this.limit);
      if (this.keep) this.kept.push(value);
      yield value;
    }
  }
}
