import { hashPassword, saveUser } from '@commerce/identity';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface FirstAdmin {
  readonly username: string;
  /** The file the password was written to, readable by its owner alone. */
  readonly passwordFile: string;
}

/**
 * On the first run (no users file yet), an `admin` member of staff with a random password, written to `passwordFile`
 * (mode 0600) for the person to read once; answers undefined when the users file exists, whoever is in it.
 */
export async function createFirstAdmin(usersFile: string, passwordFile: string): Promise<FirstAdmin | undefined> {
  if (existsSync(usersFile)) return undefined;
  const username = 'admin';
  const password = randomBytes(18).toString('base64url');
  mkdirSync(dirname(passwordFile), { recursive: true, mode: 0o700 });
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  saveUser(usersFile, { username, passwordHash: await hashPassword(password), roles: ['admin'] });
  return { username, passwordFile };
}

/** start:system's line about the back office: where it is, and who signs in with which password. */
export function backOfficeLine(
  gateway: string,
  usersFile: string,
  admin: FirstAdmin | undefined,
  shown: (path: string) => string,
): string {
  const who = admin
    ? `sign in as ${admin.username}; its password, made now, is in ${shown(admin.passwordFile)}`
    : `staff in ${shown(usersFile)}; add one with pnpm identity:add-user <name> --role <role>`;
  return `  the back office:      ${gateway}/admin/  (${who})`;
}
