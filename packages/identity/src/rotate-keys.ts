import {
  createKeysFileIfMissing,
  type KeyRing,
  newSigningKey,
  readKeysFile,
  type SigningKey,
  writeKeysFile,
} from './keys-file';

/**
 * How long past `retiredAt + token TTL` a key stays published: an instance
 * that reloads a moment late still signs with the old key, and verifiers
 * allow a few seconds of clock skew.
 */
export const RETIREMENT_MARGIN_SECONDS = 60;

export interface Rotation {
  readonly ring: KeyRing;
  readonly current: SigningKey;
  readonly dropped: readonly string[];
}

/**
 * The ring after a rotation: `fresh` first, so it signs from now on; the keys
 * it replaces marked retired now; and keys retired long enough ago that every
 * token they signed has expired, dropped.
 */
export function rotate(ring: KeyRing, fresh: SigningKey, now: Date, tokenTtlSeconds: number): Rotation {
  const retired = ring.keys.map((key) => (key.retiredAt ? key : { ...key, retiredAt: now.toISOString() }));
  const stillNeeded = (key: SigningKey) =>
    Date.parse(key.retiredAt!) + (tokenTtlSeconds + RETIREMENT_MARGIN_SECONDS) * 1000 > now.getTime();
  return {
    ring: { keys: [fresh, ...retired.filter(stillNeeded)] },
    current: fresh,
    dropped: retired.filter((key) => !stillNeeded(key)).map((key) => key.kid),
  };
}

/** Rotates the keys file in place (created first when missing). */
export async function rotateKeysFile(path: string, tokenTtlSeconds: number, now = new Date()): Promise<Rotation> {
  await createKeysFileIfMissing(path);
  const rotation = rotate(await readKeysFile(path), await newSigningKey(), now, tokenTtlSeconds);
  writeKeysFile(path, rotation.ring);
  return rotation;
}
