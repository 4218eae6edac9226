/** The sample app checks no caller: it listens on this machine only unless HOST says otherwise. */
export const DEFAULT_HOST = '127.0.0.1';

/**
 * HOST from the environment: the address to bind (0.0.0.0 for every IPv4 interface, :: for every interface); unset or
 * empty, loopback.
 */
export function parseHost(value: string | undefined): string {
  return value === undefined || value === '' ? DEFAULT_HOST : value;
}
