import { displayUrl, openAccessNote, redactedUrl, runMain } from '@platform/runtime';
import { fileURLToPath } from 'node:url';
import { loadConfig } from './config';
import { startStockService } from './stock-service';

/**
 * The entry is the one place that knows this workspace's layout: it hands the service its contract (OPENAPI_FILE
 * overrides it).
 */
const WORKSPACE_FILES = { openApiFile: fileURLToPath(new URL('../../../../docs/openapi.yaml', import.meta.url)) };

await runMain(
  'stock service',
  async () => {
    const config = loadConfig(process.env, process.cwd(), WORKSPACE_FILES);
    const service = await startStockService(config);
    const url = displayUrl(config.host, service.port);
    const access = openAccessNote(config);
    service.logger.info(
      `stock service listening on ${url} (node ${process.version}); docs at ${url}/swagger${access ? `; ${access}` : ''}`,
      {
        url,
        node: process.version,
        docs: `${url}/swagger`,
        database: redactedUrl(config.databaseUrl),
        ...(access && { access }),
      },
    );
    return service;
  },
  { tracingName: 'stock-service' },
);
