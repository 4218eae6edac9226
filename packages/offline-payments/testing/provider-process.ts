import { fileURLToPath } from 'node:url';

/** The offline provider's entry, for tests that run it as a process of its own, as `pnpm start:payments` does. */
export const OFFLINE_PROVIDER_MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
