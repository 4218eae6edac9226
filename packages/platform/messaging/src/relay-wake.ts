import type { Outbox, UnitOfWork } from '@platform/kernel';

/**
 * The unit of work, telling `wake` once a unit of work that wrote to the
 * outbox has committed, so that the relay of this instance publishes at once
 * instead of at its next poll. Nothing is told of one that rolled back or
 * wrote no event. Polling stays the guarantee; this only saves latency.
 */
export function wakingTheRelay<Tx extends { readonly outbox: Outbox }>(
  unitOfWork: UnitOfWork<Tx>,
  wake: () => void,
): UnitOfWork<Tx> {
  return {
    async run(work, options) {
      // A single call (a hot row's one conditional write) goes through as it is: no use case writes an event that way.
      if (options?.singleCall) return unitOfWork.run(work, options);
      let wrote = false;
      const result = await unitOfWork.run(
        (tx) =>
          work({
            ...tx,
            outbox: {
              add: (envelope) => {
                wrote = true;
                return tx.outbox.add(envelope);
              },
            },
          }),
        options,
      );
      if (wrote) {
        try {
          wake();
        } catch {
          // The work has committed: a wake that fails must not fail it. The relay's next poll publishes the events.
        }
      }
      return result;
    },
  };
}
