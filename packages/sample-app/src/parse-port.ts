export const DEFAULT_PORT = 8081;

/** PORT from the environment: digits only, 0 to 65535 (0 lets the system choose). */
export function parsePort(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PORT;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 0 && port <= 65535))
    throw new Error(`PORT must be an integer from 0 to 65535, not ${JSON.stringify(value)}.`);
  return port;
}
