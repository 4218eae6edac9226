import type { Clock, UnitOfWork } from '@platform/kernel';
import { every, type Logger } from '@platform/runtime';
import type { PerformPaymentWork } from '@sales/application';
import type { SalesTransaction } from '@sales/domain';
import type { PaymentRefusalCounter } from '@sales/http-koa';

/** Longer than a call to the provider may take, its SDK's retries included: past it, another worker takes the order. */
const LEASE_MS = 60_000;
/** Orders claimed at once, their calls made side by side. */
const BATCH = 20;
/** The first retry of a call that failed, then twice as long each time, up to a minute. */
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;

export interface PaymentWorkerOptions {
  readonly unitOfWork: UnitOfWork<SalesTransaction>;
  readonly performPaymentWork: PerformPaymentWork;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly pollMs: number;
  /** Counts the calls the provider refused for good. */
  readonly refusals: PaymentRefusalCounter;
}

/**
 * The calls orders owe the payment provider, made every PAYMENTS_POLL_MS: it claims the orders whose row says a call is
 * due (leased, so that instances share the work and one that died hands it on), makes each call and records its
 * answer. A call the provider refused for good is recorded on the order by PerformPaymentWork, which then owes it no
 * more: one warning, one count. A call that failed otherwise (the provider unreachable, failing, limiting the rate, in
 * a conflict) is due again after a backoff, capped; its idempotency key makes the next attempt one effect with this
 * one.
 */
export function paymentWorker({
  unitOfWork,
  performPaymentWork,
  clock,
  logger,
  pollMs,
  refusals,
}: PaymentWorkerOptions) {
  const failures = new Map<string, number>();

  const perform = async (orderId: string) => {
    try {
      const outcome = await performPaymentWork.execute(orderId);
      failures.delete(orderId);
      if (typeof outcome === 'object') {
        logger.warn('the payment provider refused a call for good; it is not made again (the order says why)', {
          orderId,
          call: outcome.refused,
          error: outcome.reason,
        });
        refusals.count(outcome.refused);
      }
    } catch (error) {
      const attempts = (failures.get(orderId) ?? 0) + 1;
      failures.set(orderId, attempts);
      const retryInMs = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempts - 1));
      logger.warn('a call to the payment provider failed; it is tried again later', {
        orderId,
        attempts,
        retryInMs,
        error: (error as Error).message,
      });
      const until = new Date(clock().getTime() + retryInMs);
      await unitOfWork.run((tx) => tx.orders.deferPaymentWork(orderId, until), { singleCall: true });
    }
  };

  const round = async () => {
    for (;;) {
      const claimed = await unitOfWork.run((tx) => tx.orders.claimPaymentWork(clock(), LEASE_MS, BATCH));
      await Promise.all(claimed.map(perform));
      if (claimed.length < BATCH) return;
    }
  };

  return every(pollMs, 'payment work', round, logger);
}
