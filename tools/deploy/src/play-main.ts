/**
 * pnpm kube:play [--tag T]: the local overlay of deploy/kubernetes played with podman on this machine's PostgreSQL,
 * RabbitMQ and Redis (host networking, images from `pnpm images`, tagged with the commit unless --tag names
 * another), the offline payment provider first and sales' webhook endpoint registered with it, until every service
 * is ready. pnpm kube:down takes it down.
 */
import { parseArgs } from 'node:util';
import { LOCAL_STATE, playLocal, takeDownLocal, writeLocalSecrets } from './local-play';
import { revisionTag } from './podman';

const { values } = parseArgs({ options: { tag: { type: 'string' }, down: { type: 'boolean', default: false } } });
const env = process.env;
const postgres = (database: string) => `postgres://postgres@127.0.0.1:5432/${database}`;

if (values.down) {
  takeDownLocal();
  process.stdout.write('kube:down: the local pods are down, their secrets removed\n');
} else {
  await writeLocalSecrets({
    stockDatabaseUrl: env.STOCK_DATABASE_URL ?? postgres('kube_stock'),
    salesDatabaseUrl: env.SALES_DATABASE_URL ?? postgres('kube_sales'),
    amqpUrl: env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  });
  const system = await playLocal(values.tag ?? revisionTag());
  process.stdout.write(
    [
      `kube:play: every service is ready; the gateway is ${system.gateway}, the clients are in ${system.clientsFile}`,
      `  the back office: ${system.gateway}/admin/ (sign in as admin; its password is in ${system.adminPasswordFile})`,
      `  payments: the offline provider at ${system.payments}, its key in ${LOCAL_STATE}/secrets/payments/config.json;` +
        ` sales' webhook endpoint is registered with it`,
      `  everything it wrote is in ${LOCAL_STATE}; pnpm kube:down stops it all`,
      '',
    ].join('\n'),
  );
}
