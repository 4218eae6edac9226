import { runMain } from '@platform/runtime';
import { loadConfig } from './config';
import { startIdentityService } from './identity-service';

await runMain(
  'identity service',
  async () => {
    const service = await startIdentityService(loadConfig());
    const discovery = `${service.issuer}/.well-known/openid-configuration`;
    service.logger.info(
      `identity service listening on ${service.url} (node ${process.version}); discovery at ${discovery}`,
      { url: service.url, node: process.version, issuer: service.issuer, discovery },
    );
    // Besides the file watch: for file systems that do not report changes.
    process.on('SIGHUP', () => void service.reload());
    return service;
  },
  { tracingName: 'identity' },
);
