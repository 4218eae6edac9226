import { Scopes } from '@commerce/contracts';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const { stock, sales } = Scopes;

export interface Client {
  clientId: string;
  clientSecret: string;
  scopes: string[];
}

/**
 * Who start:system's clients are: a buyer (`demo`), a person managing stock
 * (who also ships orders and takes returns), sales calling stock, and an
 * administrator of orders, who also refunds. A buyer holds no stock scope.
 * Payments are confirmed by the provider's signed webhooks, not by a client.
 */
export const DEVELOPMENT_CLIENTS: readonly {
  readonly clientId: string;
  readonly scopes: readonly string[];
  readonly role: string;
}[] = [
  { clientId: 'demo', scopes: [sales.read, sales.write], role: 'a buyer' },
  {
    clientId: 'stock-admin',
    scopes: [stock.read, stock.write, stock.reserve, stock.fulfil],
    role: 'a person managing stock, shipping orders and taking returns',
  },
  { clientId: 'sales-service', scopes: [stock.read], role: 'sales, to read stock' },
  {
    clientId: 'orders-admin',
    scopes: [sales.admin, sales.refund, stock.read],
    role: 'reads, cancels and refunds every order',
  },
];

/**
 * Clients an older start:system wrote that hold a scope no API knows any more: identity would refuse the whole file,
 * so they are taken out of it.
 */
const RETIRED_CLIENTS: readonly string[] = ['payment-provider'];

export interface ClientsFile {
  readonly clients: readonly Client[];
  /** The file was missing and has been written. */
  readonly created: boolean;
  /** Development clients the existing file lacked, now added to it. */
  readonly added: readonly string[];
  /** Lines to tell the person: what in the existing file is not as start:system would write it now. */
  readonly notices: readonly string[];
}

const secret = () => randomBytes(32).toString('base64url');

/** Replaces the file at once, readable by its owner only: it holds the secrets. */
function writeWhole(path: string, clients: readonly Client[]): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${randomUUID()}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(clients, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    renameSync(temporary, path);
  } catch (error) {
    unlinkSync(temporary);
    throw error;
  }
}

function read(path: string): Client[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(
      `${path} is not a JSON clients file (${(error as Error).message.split('\n')[0]}); fix it, or delete it to have the development clients written again.`,
      { cause: error },
    );
  }
  if (
    !Array.isArray(parsed) ||
    parsed.some(
      (entry) => typeof entry !== 'object' || entry === null || typeof (entry as Client).clientId !== 'string',
    )
  ) {
    throw new Error(
      `${path} must hold a JSON array of clients ({ "clientId", "clientSecret", "scopes" }); fix it, or delete it to have the development clients written again.`,
    );
  }
  return parsed as Client[];
}

/**
 * The clients file start:system runs identity with. Written with random
 * secrets when missing; a file from an older start:system gets the
 * development clients it lacks (with new secrets), loses the retired ones and
 * gives orders-admin orders:refund, each said in a notice; the others are left
 * as they are, and a buyer still holding stock scopes, or a stock manager
 * lacking stock:fulfil (files from before shipments), is pointed out, not
 * changed.
 */
export function developmentClientsFile(path: string): ClientsFile {
  if (!existsSync(path)) {
    const clients = DEVELOPMENT_CLIENTS.map(({ clientId, scopes }) => ({
      clientId,
      clientSecret: secret(),
      scopes: [...scopes],
    }));
    writeWhole(path, clients);
    return { clients, created: true, added: [], notices: [] };
  }
  const existing = read(path);
  const retired = existing.filter((client) => RETIRED_CLIENTS.includes(client.clientId));
  const current = existing.filter((client) => !RETIRED_CLIENTS.includes(client.clientId));
  const kept = current.map((client) => (client.clientId === 'orders-admin' ? withRefunds(client) : client));
  const refundsAdded = kept.some((client, i) => client !== current[i]);
  const missing = DEVELOPMENT_CLIENTS.filter(({ clientId }) => !kept.some((client) => client.clientId === clientId));
  const clients = [
    ...kept,
    ...missing.map(({ clientId, scopes }) => ({ clientId, clientSecret: secret(), scopes: [...scopes] })),
  ];
  if (missing.length > 0 || retired.length > 0 || refundsAdded) writeWhole(path, clients);
  const notices: string[] = [
    ...retired.map(
      ({ clientId }) =>
        `${clientId} was taken out of ${path}: payments are confirmed by the provider's signed webhooks now, not by a client.`,
    ),
    ...(refundsAdded ? [`orders-admin in ${path} was given ${sales.refund}: it refunds orders.`] : []),
  ];
  const demo = existing.find((client) => client.clientId === 'demo');
  const stockScopes = Array.isArray(demo?.scopes) ? demo.scopes.filter((scope) => scope.startsWith('stock:')) : [];
  if (stockScopes.length > 0) {
    notices.push(
      `demo in ${path} still holds ${stockScopes.join(', ')}, which a buyer no longer gets (stock-admin manages stock); remove them from it, or delete the file to have the development clients written again.`,
    );
  }
  const stockAdmin = existing.find((client) => client.clientId === 'stock-admin');
  if (stockAdmin && Array.isArray(stockAdmin.scopes) && !stockAdmin.scopes.includes(stock.fulfil)) {
    notices.push(
      `stock-admin in ${path} lacks ${stock.fulfil}, which ships orders and takes returns; add it to its scopes, or delete the file to have the development clients written again.`,
    );
  }
  return { clients, created: false, added: missing.map(({ clientId }) => clientId), notices };
}

/** The client with orders:refund among its scopes (the same object when it holds it already). */
function withRefunds(client: Client): Client {
  if (!Array.isArray(client.scopes) || client.scopes.includes(sales.refund)) return client;
  return { ...client, scopes: [...client.scopes, sales.refund] };
}
