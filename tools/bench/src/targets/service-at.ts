import { pathToFileURL } from 'node:url';

/**
 * The stock service of another checkout of this workspace (SERVICE_ROOT, a
 * git worktree at an earlier commit with its own pnpm install), as its `pnpm
 * start` runs it: the "before" of a before/after measured in one run
 * (`pnpm bench --compare-with <dir>`).
 */
const root = process.env.SERVICE_ROOT;
if (!root) throw new Error('SERVICE_ROOT names the checkout to serve from');
const { loadConfig, startStockService } = (await import(
  pathToFileURL(`${root}/packages/stock/service/src/index.ts`).href
)) as {
  loadConfig: (env: NodeJS.ProcessEnv, cwd: string, files: { openApiFile: string }) => unknown;
  startStockService: (config: unknown) => Promise<{ url: string; close(): Promise<unknown> }>;
};
// Its description too, as its main.ts hands it over and this checkout's service.ts does: /swagger is served, and a
// service that serves it and one that does not are not the same request path.
const config = loadConfig(process.env, process.cwd(), { openApiFile: `${root}/docs/openapi.yaml` });
const service = await startStockService(config);
console.log(JSON.stringify({ message: 'listening', port: Number(new URL(service.url).port) }));
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void service.close().then(() => process.exit(0)));
