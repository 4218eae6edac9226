import { startGateway, DEFAULT_CONFIG as GATEWAY_DEFAULTS } from '@commerce/gateway';
import { runMain } from '@platform/runtime';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The gateway as `pnpm start:gateway` runs it (info access log on stdout, no
 * rate limit in the way), in this process, in front of the stock service as
 * `pnpm start` runs it, in a process of its own (service.ts, with this
 * process's DATABASE_URL). The harness measures this process's CPU: the hop's.
 * With GATEWAY_TOKENS=on, the service checks tokens (service-with-tokens.ts,
 * whose issuer the gateway checks them against too) and the harness sends the
 * token it hands out: both hops verify every request.
 */
const withTokens = process.env.GATEWAY_TOKENS === 'on';
const script = withTokens ? './service-with-tokens.ts' : './service.ts';
const stock = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(script, import.meta.url))], {
  env: { ...process.env, PORT: '0' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const upstream = await new Promise<{ port: number; token?: string; issuer?: string }>((resolve, reject) => {
  let buffer = '';
  stock.stdout.on('data', (chunk: Buffer) => {
    const lines = (buffer + String(chunk)).split('\n');
    buffer = lines.pop()!;
    for (const line of lines)
      if (line.includes('"listening"')) resolve(JSON.parse(line) as { port: number; token?: string; issuer?: string });
  });
  stock.once('exit', (code) => reject(new Error(`the stock service exited with ${code}`)));
});

await runMain('gateway', async () => {
  const gateway = await startGateway({
    ...GATEWAY_DEFAULTS,
    // Both descriptions, as main.ts hands them over: /swagger is served, as it is for users.
    stockOpenApiFile: fileURLToPath(new URL('../../../../docs/openapi.yaml', import.meta.url)),
    salesOpenApiFile: fileURLToPath(new URL('../../../../docs/sales.openapi.yaml', import.meta.url)),
    port: 0,
    host: '127.0.0.1',
    metricsPort: 0,
    stockUrl: [`http://127.0.0.1:${upstream.port}`],
    rateLimitPerMinute: 0,
    logLevel: (process.env.LOG_LEVEL as 'info') ?? 'info',
    ...(withTokens && { authIssuer: upstream.issuer! }),
  });
  console.log(
    JSON.stringify({ message: 'listening', port: gateway.port, ...(upstream.token && { token: upstream.token }) }),
  );
  return {
    logger: gateway.logger,
    close: async () => {
      await gateway.close({ immediate: true });
      stock.kill('SIGTERM');
    },
  };
});
