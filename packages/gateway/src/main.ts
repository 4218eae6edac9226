import { displayUrl, openAccessNote, runMain } from '@platform/runtime';
import { fileURLToPath } from 'node:url';
import { loadConfig } from './config';
import { startGateway } from './gateway-service';

/**
 * The entry is the one place that knows this workspace's layout: it hands the gateway both descriptions and the back
 * office's build (the variables override them).
 */
const WORKSPACE_FILES = {
  stockOpenApiFile: fileURLToPath(new URL('../../../docs/openapi.yaml', import.meta.url)),
  salesOpenApiFile: fileURLToPath(new URL('../../../docs/sales.openapi.yaml', import.meta.url)),
  backOfficeDir: fileURLToPath(new URL('../../back-office/dist', import.meta.url)),
};

await runMain(
  'gateway',
  async () => {
    const config = loadConfig(process.env, process.cwd(), WORKSPACE_FILES);
    const service = await startGateway(config);
    const url = displayUrl(config.host, service.port);
    const metrics = `${service.metricsUrl}/metrics`;
    const access = openAccessNote(config);
    service.logger.info(
      `gateway listening on ${url} (node ${process.version}); docs at ${url}/swagger; metrics at ${metrics}${access ? `; ${access}` : ''}`,
      {
        url,
        node: process.version,
        docs: `${url}/swagger`,
        metrics,
        stock: config.stockUrl,
        sales: config.salesUrl,
        identity: config.identityUrl,
        ...(access && { access }),
      },
    );
    return service;
  },
  { tracingName: 'gateway' },
);
