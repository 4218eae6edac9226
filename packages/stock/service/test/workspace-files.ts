import { join } from 'node:path';

/** This workspace's stock contract, which main.ts hands the service; tests that serve or check /swagger name it too. */
export const OPENAPI_FILE = join(import.meta.dirname, '..', '..', '..', '..', 'docs', 'openapi.yaml');
