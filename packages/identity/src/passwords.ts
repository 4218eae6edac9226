import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/** ADR 0031: scrypt's cost (N), block size (r) and parallelism (p), a 16-byte salt and a 64-byte key. */
export const SCRYPT = { N: 2 ** 15, r: 8, p: 1, saltBytes: 16, keyBytes: 64 } as const;

/** scrypt needs 128 × N × r bytes (32 MiB here); Node refuses above 32 MiB unless told more may be used. */
const maxmemFor = (N: number, r: number) => 256 * N * r;

/** `scrypt$N=32768,r=8,p=1$<salt>$<key>`, base64url: each hash carries its parameters, so new ones can be chosen. */
const ENCODED = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{43,})$/;

function derive(password: string, salt: Buffer, keyBytes: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyBytes, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** A new hash of `password`, with a random salt and the current parameters. */
export async function hashPassword(password: string): Promise<string> {
  const { N, r, p } = SCRYPT;
  const salt = randomBytes(SCRYPT.saltBytes);
  const key = await derive(password, salt, SCRYPT.keyBytes, { N, r, p, maxmem: maxmemFor(N, r) });
  return `scrypt$N=${N},r=${r},p=${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** Whether `encoded` is a hash this module can check: the users file is refused otherwise. */
export function isPasswordHash(encoded: string): boolean {
  const match = ENCODED.exec(encoded);
  if (!match) return false;
  const [N, r, p] = match.slice(1, 4).map(Number) as [number, number, number];
  // N a power of two; bounds keep a hand-edited file from asking for gigabytes per sign-in.
  return N >= 2 ** 14 && N <= 2 ** 20 && (N & (N - 1)) === 0 && r >= 1 && r <= 32 && p >= 1 && p <= 16;
}

/** Whether `password` is the one `encoded` was made from, compared in constant time. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const match = ENCODED.exec(encoded);
  if (!match || !isPasswordHash(encoded)) return false;
  const [N, r, p] = match.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(match[4]!, 'base64url');
  const expected = Buffer.from(match[5]!, 'base64url');
  const key = await derive(password, salt, expected.length, { N, r, p, maxmem: maxmemFor(N, r) });
  return timingSafeEqual(key, expected);
}

/** A hash no password matches, checked for an unknown username so that it takes as long as a known one. */
export const DECOY_HASH = `scrypt$N=${SCRYPT.N},r=${SCRYPT.r},p=${SCRYPT.p}$${'A'.repeat(22)}$${'A'.repeat(86)}`;
