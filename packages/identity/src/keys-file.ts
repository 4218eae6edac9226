import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { othersMayReach } from './private-file';

/** A private ES256 key. Only the first key of the file signs; `retiredAt` is when a later one stopped signing. */
export interface SigningKey extends JWK {
  readonly kid: string;
  readonly retiredAt?: string;
}

export interface KeyRing {
  readonly keys: readonly SigningKey[];
}

/** A new P-256 key, its kid the RFC 7638 thumbprint. */
export async function newSigningKey(): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: await calculateJwkThumbprint(jwk, 'sha256'), alg: 'ES256', use: 'sig' };
}

const JWK_MEMBERS = new Set(['kty', 'crv', 'x', 'y', 'd', 'kid', 'alg', 'use', 'retiredAt']);

async function signingKey(key: unknown, at: string): Promise<SigningKey> {
  const k = key as Record<string, unknown>;
  if (
    typeof key !== 'object' ||
    key === null ||
    k.kty !== 'EC' ||
    k.crv !== 'P-256' ||
    typeof k.d !== 'string' ||
    typeof k.kid !== 'string' ||
    !k.kid
  ) {
    throw new Error(`${at} is not a private EC P-256 JWK with a kid.`);
  }
  const unknown = Object.keys(k).filter((name) => !JWK_MEMBERS.has(name));
  if (unknown.length > 0) throw new Error(`${at} has unknown members ${unknown.join(', ')}.`);
  if ((k.alg ?? 'ES256') !== 'ES256' || (k.use ?? 'sig') !== 'sig')
    throw new Error(`${at} must be for alg ES256 and use sig.`);
  if (k.retiredAt !== undefined && (typeof k.retiredAt !== 'string' || Number.isNaN(Date.parse(k.retiredAt))))
    throw new Error(`${at} has a retiredAt that is not a date.`);
  try {
    await importJWK({ ...(k as JWK), retiredAt: undefined } as JWK, 'ES256');
  } catch (error) {
    throw new Error(`${at} is not a usable key: ${(error as Error).message}`, { cause: error });
  }
  return k as unknown as SigningKey;
}

/**
 * The keys file, checked: readable by its owner only, a JWKS of private
 * P-256 keys with distinct kids, the first (the signing key) not retired.
 */
export async function readKeysFile(path: string): Promise<KeyRing> {
  const stats = statSync(path);
  if (othersMayReach(stats))
    throw new Error(
      `The keys file ${path} can be read by other users (mode ${(stats.mode & 0o777).toString(8)}); chmod 600 it.`,
    );
  let parsed: { keys?: unknown };
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as typeof parsed;
  } catch (error) {
    throw new Error(`The keys file ${path} is not valid JSON: ${(error as Error).message.split('\n')[0]}`, {
      cause: error,
    });
  }
  if (!Array.isArray(parsed?.keys) || parsed.keys.length === 0)
    throw new Error(`The keys file ${path} must be a JWKS ({ "keys": [...] }) with at least one key.`);
  const keys = await Promise.all(parsed.keys.map((key, index) => signingKey(key, `Key ${index + 1} of ${path}`)));
  if (new Set(keys.map((key) => key.kid)).size !== keys.length)
    throw new Error(`The keys file ${path} has two keys with one kid.`);
  if (keys[0]!.retiredAt)
    throw new Error(`The keys file ${path} starts with a retired key; the first key is the one that signs.`);
  return { keys };
}

function temporaryBeside(path: string, ring: KeyRing): string {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomUUID()}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(ring, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return temporary;
}

/** Replaces the file at once: readers see the old keys or the new ones, never half a file. */
export function writeKeysFile(path: string, ring: KeyRing): void {
  const temporary = temporaryBeside(path, ring);
  try {
    renameSync(temporary, path);
  } catch (error) {
    unlinkSync(temporary);
    throw error;
  }
}

/**
 * Creates the file with one new key when it is missing, and answers that
 * key's kid (undefined when the file existed). Of instances starting at once,
 * one creates it and the others use its key: the link fails when the name is
 * taken, and a linked file is whole from the start.
 */
export async function createKeysFileIfMissing(path: string): Promise<string | undefined> {
  if (existsSync(path)) return undefined;
  const key = await newSigningKey();
  const temporary = temporaryBeside(path, { keys: [key] });
  try {
    linkSync(temporary, path);
    return key.kid;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  } finally {
    unlinkSync(temporary);
  }
}

/** The keys as oidc-provider takes them: JWKs without our bookkeeping. */
export function providerJwks(ring: KeyRing): { keys: JWK[] } {
  return { keys: ring.keys.map(({ retiredAt: _, ...jwk }) => jwk) };
}
