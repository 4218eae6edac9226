import type { ResultFormat } from '@platform/kernel';
import { ANONYMOUS_CALLER, type Reservation } from '@stock/domain';
import type { ReservationOutcome } from './hold-stock';

interface ReservationSnapshot extends Omit<Reservation, 'origin' | 'expiresAt' | 'createdAt' | 'updatedAt'> {
  /** Absent in records written before reservations had an origin: they were all made over HTTP. */
  origin?: Reservation['origin'];
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
  created: boolean;
}

/** A reservation as an idempotency record keeps it. */
export const reservationRecord: ResultFormat<ReservationOutcome> = {
  serialise: ({ reservation, created }) =>
    JSON.stringify({
      ...reservation,
      expiresAt: reservation.expiresAt.toISOString(),
      createdAt: reservation.createdAt.toISOString(),
      updatedAt: reservation.updatedAt.toISOString(),
      created,
    } satisfies ReservationSnapshot),
  deserialise(text) {
    const {
      created,
      origin = 'api',
      expiresAt,
      createdAt,
      updatedAt,
      ...rest
    } = JSON.parse(text) as ReservationSnapshot;
    // Records written before holds had owners: the migration gave those holds to ANONYMOUS_CALLER. (Their keys, scoped
    // by no caller, are never asked for again.)
    const owner = origin === 'api' && rest.owner === undefined ? { owner: ANONYMOUS_CALLER } : {};
    return {
      reservation: {
        ...rest,
        ...owner,
        origin,
        expiresAt: new Date(expiresAt),
        createdAt: new Date(createdAt),
        updatedAt: new Date(updatedAt),
      },
      created,
    };
  },
};
