import { displayUrl, runMain } from '@platform/runtime';
import { loadConfig } from './config';
import { startOfflineProvider } from './offline-provider';

await runMain(
  'payments provider',
  async () => {
    const config = loadConfig();
    const service = await startOfflineProvider(config);
    const url = displayUrl(config.host, service.port);
    const chaos = config.chaos.length > 0 ? config.chaos.join(', ') : 'off';
    service.logger.info(
      `offline payments provider listening on ${url} (node ${process.version}); Stripe's API at ${url}/v1; chaos ${chaos}`,
      { url, node: process.version, chaos: config.chaos, chaosDelayMs: config.chaosDelayMs },
    );
    return service;
  },
  { tracingName: 'payments' },
);
