import { listen, type Logger, serve } from '@platform/http';
import { displayUrl, isLoopback } from '@platform/runtime';
import { fileURLToPath } from 'node:url';
import { createSampleApp } from './create-sample-app';
import { parseHost } from './parse-host';
import { parsePort } from './parse-port';

/** One JSON line per event on stderr, as the app logs its unexpected errors: stdout carries only the start line. */
const logger: Logger = {
  info: (msg, fields) => console.error(JSON.stringify({ level: 'info', msg, ...fields })),
  warn: (msg, fields) => console.error(JSON.stringify({ level: 'warn', msg, ...fields })),
  error: (msg, fields) => console.error(JSON.stringify({ level: 'error', msg, ...fields })),
};

/** Where this workspace keeps the sample app's contract; SPEC_FILE points elsewhere. */
const specFile =
  process.env.SPEC_FILE ?? fileURLToPath(new URL('../../../docs/sample-app.openapi.yaml', import.meta.url));

/**
 * The platform's listener and stop, without readiness (the sample app has
 * none, so no drain delay): on SIGTERM it stops accepting, answers what is in
 * flight and what arrives on open connections with Connection: close, and
 * leaves idle ones to their keep-alive time; Ctrl-C closes them at once.
 */
async function start() {
  const port = parsePort(process.env.PORT);
  const host = parseHost(process.env.HOST);
  const listener = await listen({ port, host, requestTimeoutMs: 30_000, headersTimeoutMs: 10_000 });
  const running = serve(
    listener,
    { app: createSampleApp({ specFile }), drain: () => undefined },
    { shutdownDelayMs: 0, shutdownGraceMs: 10_000 },
    logger,
  );
  const where = isLoopback(host) ? `; on ${host} only (set HOST to listen elsewhere)` : '';
  console.log(
    `sample app listening on ${displayUrl(host, running.port)} (node ${process.version}; docs at /swagger)${where}`,
  );
  return running;
}

const running = await start().catch((error: unknown) => {
  console.error(`sample app failed to start: ${(error as Error).message}`);
  process.exit(1);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // close() is safe to call again: a second signal waits for the same stop.
  process.on(
    signal,
    () => void running.close({ immediate: signal === 'SIGINT' }).then((clean) => process.exit(clean ? 0 : 1)),
  );
}
