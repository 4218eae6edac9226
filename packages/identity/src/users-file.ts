import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isPasswordHash } from './passwords';
import { othersMayReach } from './private-file';
import { isRole, type Role, ROLE_NAMES } from './roles';

/** A member of staff who signs in to the back office; tokens name them by `username` in `sub`. */
export interface StaffUser {
  readonly username: string;
  readonly passwordHash: string;
  readonly roles: readonly Role[];
}

/** Lower case, so that "Alice" and "alice" cannot be two people; it shows as the actor in stock's ledger. */
export const USERNAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const USERNAME_RULE = '1 to 64 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit';
const PROPERTIES = new Set(['username', 'passwordHash', 'roles']);

/** Refuses a file others may read (the hashes can be attacked offline) or write (they could add themselves). */
function assertPrivate(path: string): void {
  const stats = statSync(path);
  if (othersMayReach(stats))
    throw new Error(
      `The users file ${path} can be read or written by other users (mode ${(stats.mode & 0o777).toString(8)}); chmod 600 it.`,
    );
}

function parse(path: string): unknown {
  if (!existsSync(path))
    throw new Error(
      `The users file ${path} (IDENTITY_USERS_FILE) does not exist; create it with pnpm identity:add-user <username> --role <role>.`,
    );
  assertPrivate(path);
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`The users file ${path} is not valid JSON: ${(error as Error).message.split('\n')[0]}`, {
      cause: error,
    });
  }
}

function user(entry: unknown, where: string, seen: Set<string>): StaffUser {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    throw new Error(`${where} must be an object with username, passwordHash and roles.`);
  const unknown = Object.keys(entry).filter((key) => !PROPERTIES.has(key));
  if (unknown.length > 0)
    throw new Error(
      `${where} has unknown propert${unknown.length > 1 ? 'ies' : 'y'} ${unknown.map((k) => JSON.stringify(k)).join(', ')}; known: username, passwordHash, roles.`,
    );
  const { username, passwordHash, roles } = entry as Record<string, unknown>;
  if (typeof username !== 'string' || !USERNAME.test(username))
    throw new Error(`${where}: username must be ${USERNAME_RULE}.`);
  const named = `${where} (${username})`;
  if (seen.has(username)) throw new Error(`${named}: username is listed twice.`);
  seen.add(username);
  if (typeof passwordHash !== 'string' || !isPasswordHash(passwordHash))
    throw new Error(`${named}: passwordHash must be a scrypt hash as pnpm identity:add-user writes it.`);
  if (!Array.isArray(roles) || roles.length === 0)
    throw new Error(`${named}: roles must be a non-empty array of ${ROLE_NAMES.join(', ')}.`);
  const unknownRole: unknown = roles.find((role) => typeof role !== 'string' || !isRole(role));
  if (unknownRole !== undefined)
    throw new Error(`${named}: unknown role ${JSON.stringify(unknownRole)}; known: ${ROLE_NAMES.join(', ')}.`);
  return { username, passwordHash, roles: [...new Set(roles as Role[])] };
}

/** The staff, from a file only its owner may read, or one line saying what is wrong with the file and where. */
export function readUsersFile(path: string): readonly StaffUser[] {
  const parsed = parse(path);
  if (!Array.isArray(parsed)) throw new Error(`The users file ${path} must hold a JSON array of users.`);
  const seen = new Set<string>();
  return parsed.map((entry, index) => user(entry, `User ${index + 1} of ${path}`, seen));
}

/**
 * Adds `added` to the users file, or replaces the user of that name, creating the file (mode 0600) when missing. The
 * new file is renamed over the old one, so a service reading it never sees half of it.
 */
export function saveUser(path: string, added: StaffUser): 'added' | 'updated' {
  const users = existsSync(path) ? readUsersFile(path) : [];
  const updated = users.some((existing) => existing.username === added.username);
  const next = updated
    ? users.map((existing) => (existing.username === added.username ? added : existing))
    : [...users, added];
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const draft = `${path}.${process.pid}.tmp`;
  writeFileSync(draft, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(draft, path);
  return updated ? 'updated' : 'added';
}
