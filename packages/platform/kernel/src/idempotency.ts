import { createHash } from 'node:crypto';
import { DomainError } from './errors';
import type { UnitOfWork } from './unit-of-work';

/** Work that must happen at most once per key: a request's Idempotency-Key, a message's id. */
export interface IdempotentRequest {
  /** What the key is for (an operation, a consumer): the same key may serve different scopes. */
  readonly scope: string;
  readonly key: string;
  /** A digest of the payload: the same key with another payload is refused. */
  readonly fingerprint: string;
}

export type IdempotencyClaim =
  /** This transaction owns the key: run the work, then complete the claim. */
  | { readonly status: 'claimed' }
  /** An earlier transaction ran the work and recorded its result. */
  | { readonly status: 'recorded'; readonly fingerprint: string; readonly result: string }
  /** Another transaction holds the key and has not finished; only stores whose claims do not block answer this. */
  | { readonly status: 'pending' };

/**
 * The idempotency records of one transaction. Records live in the same store
 * as the effect and are written in the same transaction, so either both the
 * effect and its record commit or neither does.
 */
export interface IdempotencyRecords {
  /** Claims the key, or answers what is recorded for it; records past their time to live are forgotten. */
  claim(request: IdempotentRequest): Promise<IdempotencyClaim>;
  /** Records the result of a claimed key. */
  complete(request: IdempotentRequest, result: string): Promise<void>;
  /**
   * The live record of a key whose work finished, read without claiming it; undefined when there is none (or its work
   * is still running).
   */
  find(request: IdempotentRequest): Promise<{ readonly fingerprint: string; readonly result: string } | undefined>;
}

export class IdempotencyKeyReusedError extends DomainError<'IDEMPOTENCY_KEY_REUSED'> {
  readonly code = 'IDEMPOTENCY_KEY_REUSED';

  constructor(readonly key: string) {
    super(`The idempotency key "${key}" was already used for a different request.`);
  }
}

/** How a result is kept in a record and read back for a repeat. */
export interface ResultFormat<T> {
  serialise(value: T): string;
  deserialise(text: string): T;
}

export interface OnceResult<T> {
  readonly value: T;
  /** True when this is a repeat answered from the record. */
  readonly replayed: boolean;
}

const PENDING_ATTEMPTS = 50;

/**
 * Runs `work` in one unit of work with its idempotency record, at most once
 * per key: a repeat with the same key and fingerprint answers the recorded
 * result without running it; the same key with another fingerprint throws
 * IdempotencyKeyReusedError. Work that throws records nothing, so its retry
 * runs again. A repeat that arrives while the first is running waits for it.
 */
export async function runOnce<Tx extends { readonly idempotency: IdempotencyRecords }, T>(
  unitOfWork: UnitOfWork<Tx>,
  request: IdempotentRequest,
  format: ResultFormat<T>,
  work: (tx: Tx) => Promise<T>,
): Promise<OnceResult<T>> {
  for (let attempt = 1; attempt <= PENDING_ATTEMPTS; attempt++) {
    const outcome = await unitOfWork.run(async (tx): Promise<OnceResult<T> | undefined> => {
      const claim = await tx.idempotency.claim(request);
      if (claim.status === 'pending') return undefined;
      if (claim.status === 'recorded') {
        if (claim.fingerprint !== request.fingerprint) throw new IdempotencyKeyReusedError(request.key);
        return { value: format.deserialise(claim.result), replayed: true };
      }
      const value = await work(tx);
      await tx.idempotency.complete(request, format.serialise(value));
      return { value, replayed: false };
    });
    if (outcome) return outcome;
    await new Promise((resolve) => setTimeout(resolve, 10 * attempt));
  }
  throw new Error(`The idempotency key "${request.key}" stayed claimed by an unfinished transaction.`);
}

/**
 * The recorded answer to `request`, when its work already ran: read without
 * claiming the key, so a caller can answer a repeat before doing what the
 * work needs first (a call to another service that may be down). Undefined
 * when nothing is recorded yet; the same key with another fingerprint throws
 * IdempotencyKeyReusedError, as runOnce would.
 */
export async function recordedResult<Tx extends { readonly idempotency: IdempotencyRecords }, T>(
  unitOfWork: UnitOfWork<Tx>,
  request: IdempotentRequest,
  format: ResultFormat<T>,
): Promise<OnceResult<T> | undefined> {
  const record = await unitOfWork.run((tx) => tx.idempotency.find(request), { singleCall: true });
  if (!record) return undefined;
  if (record.fingerprint !== request.fingerprint) throw new IdempotencyKeyReusedError(request.key);
  return { value: format.deserialise(record.result), replayed: true };
}

/** A result that is already text, kept as it is (a message handler's outcome). */
export const textResult: ResultFormat<string> = { serialise: (text) => text, deserialise: (text) => text };

/**
 * The inbox entry of a message for `consumer`: its id is the key, and a digest
 * of its type and data the fingerprint, so a redelivery has no second effect
 * and a different message reusing the id is refused.
 */
export function inboxEntry(
  consumer: string,
  message: { readonly id: string; readonly type: string; readonly data: unknown },
): IdempotentRequest {
  return {
    scope: consumer,
    key: message.id,
    fingerprint: createHash('sha256')
      .update(`${message.type}\n${JSON.stringify(message.data)}`)
      .digest('hex'),
  };
}
