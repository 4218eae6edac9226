/**
 * An order holds at most this many lines, and so do the events that carry
 * them and the reservation stock makes of them: as many as one batch read of
 * products answers.
 */
export const ORDER_MAX_LINES = 100;

/** The most of one product an order may ask for. */
export const LINE_MAX_QUANTITY = 10_000;
