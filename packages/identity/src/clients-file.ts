import { existsSync, readFileSync, statSync } from 'node:fs';
import { STAFF_CLIENT_ID } from '@commerce/contracts';
import { othersMayReach } from './private-file';
import { ALL_SCOPES } from './resources';

export interface IdentityClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes: readonly string[];
}

const CLIENT_ID = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$/;
/** Visible ASCII only: secrets travel form-urlencoded in Basic auth, where anything else trips naive clients. */
const CLIENT_SECRET = /^[\x21-\x7e]{32,512}$/;
const PROPERTIES = new Set(['clientId', 'clientSecret', 'scopes']);

function parse(path: string): unknown {
  if (!existsSync(path))
    throw new Error(
      `The clients file ${path} (IDENTITY_CLIENTS_FILE) does not exist; it holds [{ "clientId", "clientSecret", "scopes": [...] }].`,
    );
  // The secrets are in it in plain text: as private as the keys file. Writable by others would let them add a client.
  const stats = statSync(path);
  if (othersMayReach(stats))
    throw new Error(
      `The clients file ${path} can be read or written by other users (mode ${(stats.mode & 0o777).toString(8)}); chmod 600 it.`,
    );
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`The clients file ${path} is not valid JSON: ${(error as Error).message.split('\n')[0]}`, {
      cause: error,
    });
  }
}

function client(entry: unknown, where: string, seen: Set<string>): IdentityClient {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    throw new Error(`${where} must be an object with clientId, clientSecret and scopes.`);
  const unknown = Object.keys(entry).filter((key) => !PROPERTIES.has(key));
  if (unknown.length > 0)
    throw new Error(
      `${where} has unknown propert${unknown.length > 1 ? 'ies' : 'y'} ${unknown.map((k) => JSON.stringify(k)).join(', ')}; known: clientId, clientSecret, scopes.`,
    );
  const { clientId, clientSecret, scopes } = entry as Record<string, unknown>;
  if (typeof clientId !== 'string' || !CLIENT_ID.test(clientId))
    throw new Error(
      `${where}: clientId must be 1 to 128 letters, digits, ".", "_", "~" or "-", starting with a letter or digit.`,
    );
  const named = `${where} (${clientId})`;
  // The back office's public client is identity's own, and its tokens are staff's (ADR 0038): no file may claim it.
  if (clientId === STAFF_CLIENT_ID)
    throw new Error(`${named}: clientId ${STAFF_CLIENT_ID} is the back office's own; choose another name.`);
  if (seen.has(clientId)) throw new Error(`${named}: clientId is listed twice.`);
  seen.add(clientId);
  if (typeof clientSecret !== 'string' || !CLIENT_SECRET.test(clientSecret))
    throw new Error(`${named}: clientSecret must be 32 to 512 visible ASCII characters.`);
  if (!Array.isArray(scopes) || scopes.length === 0)
    throw new Error(`${named}: scopes must be a non-empty array of ${ALL_SCOPES.join(', ')}.`);
  const unknownScope: unknown = scopes.find((scope) => typeof scope !== 'string' || !ALL_SCOPES.includes(scope));
  if (unknownScope !== undefined)
    throw new Error(`${named}: unknown scope ${JSON.stringify(unknownScope)}; known: ${ALL_SCOPES.join(', ')}.`);
  return { clientId, clientSecret, scopes: [...new Set(scopes as string[])] };
}

/**
 * The clients allowed to ask for tokens, from a file only its owner may read, or one line saying what is wrong with the
 * file and where.
 */
export function readClientsFile(path: string): readonly IdentityClient[] {
  const parsed = parse(path);
  if (!Array.isArray(parsed)) throw new Error(`The clients file ${path} must hold a JSON array of clients.`);
  if (parsed.length === 0) throw new Error(`The clients file ${path} lists no clients.`);
  const seen = new Set<string>();
  return parsed.map((entry, index) => client(entry, `Client ${index + 1} of ${path}`, seen));
}
