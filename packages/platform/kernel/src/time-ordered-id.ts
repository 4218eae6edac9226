import { randomFillSync } from 'node:crypto';

/** The last id's milliseconds and its 12-bit sequence within them (RFC 9562 §6.2, method 1). */
let lastTime = -1;
let sequence = 0;

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, a 12-bit
 * sequence, then random bits. Ids made later in this process sort after
 * earlier ones, within the same millisecond too (and under a clock that
 * stands still or steps back: the sequence carries on, and overflows into the
 * next millisecond). A table keyed by them pages in creation order without
 * another column; across processes they sort to the millisecond.
 */
export function timeOrderedId(now: number = Date.now()): string {
  if (now > lastTime) {
    lastTime = now;
    sequence = Math.floor(Math.random() * 0x400); // room for 3072 more in this millisecond
  } else if (++sequence > 0xfff) {
    lastTime += 1;
    sequence = 0;
  }
  const bytes = randomFillSync(new Uint8Array(16));
  let time = lastTime;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = time % 256;
    time = Math.floor(time / 256);
  }
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
