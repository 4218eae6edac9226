import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';

/** Addresses a webhook must not reach: this host, private networks, link-local (cloud metadata) and the like. */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT, and Alibaba's metadata at 100.100.100.200
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, and the metadata service of AWS, GCP and Azure at 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local, AWS's IPv6 metadata fd00:ec2::254 among them
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');

/** Whether `address` (an IP literal) is loopback, private, link-local, metadata, multicast or unspecified. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return FORBIDDEN.check(address, 'ipv4');
  if (family !== 6) return true;
  // IPv4 written as IPv6 (::ffff:127.0.0.1) is the IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? FORBIDDEN.check(mapped[1]!, 'ipv4') : FORBIDDEN.check(address, 'ipv6');
}

/** A URL or the address its host resolves to is not one a webhook may be sent to. */
export class TargetRefusedError extends Error {
  readonly code = 'WEBHOOK_TARGET_REFUSED';
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * Refuses a URL that is not http(s), carries credentials, or whose host resolves to a forbidden address (every
 * address it resolves to is checked), unless private targets are allowed.
 */
export async function checkTarget(raw: string, allowPrivate: boolean): Promise<void> {
  const url = new URL(raw);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new TargetRefusedError('must be an http or https URL');
  if (url.username || url.password) throw new TargetRefusedError('must not carry credentials');
  if (allowPrivate) return;
  const host = hostOf(url);
  const addresses = isIP(host)
    ? [host]
    : await new Promise<string[]>((resolve, reject) =>
        dnsLookup(host, { all: true }, (error, found: LookupAddress[]) =>
          error
            ? reject(new TargetRefusedError(`its host ${host} does not resolve`))
            : resolve(found.map((a) => a.address)),
        ),
      );
  const forbidden = addresses.find(isForbiddenAddress);
  if (forbidden)
    throw new TargetRefusedError(
      `its host resolves to ${forbidden}, a loopback, private, link-local or metadata address`,
    );
}

/**
 * The lookup each connection makes, refusing a forbidden address: what the subscription was checked against may
 * resolve elsewhere now (DNS rebinding), so the address actually connected to is the one checked.
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 4);
    const forbidden = addresses.find((a) => isForbiddenAddress(a.address));
    if (forbidden)
      return callback(
        new TargetRefusedError(`${hostname} resolves to ${forbidden.address}, which webhooks may not reach`),
        '',
        4,
      );
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

/**
 * undici's connector with the address check at connect time: a literal IP host is checked here (Node makes no
 * lookup for one), any other host in the lookup hook. With private targets allowed it is undici's own.
 */
export function guardedConnector(allowPrivate: boolean, connectTimeoutMs: number): buildConnector.connector {
  const connect = buildConnector({ timeout: connectTimeoutMs, ...(allowPrivate ? {} : { lookup: guardedLookup }) });
  if (allowPrivate) return connect;
  return (options, callback) => {
    const host = options.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && isForbiddenAddress(host))
      return callback(new TargetRefusedError(`${host} is an address webhooks may not reach`), null);
    return connect(options, callback);
  };
}
