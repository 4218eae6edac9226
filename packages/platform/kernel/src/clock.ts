/** The time now: injected, so use cases and their tests agree on what "now" is. */
export type Clock = () => Date;
