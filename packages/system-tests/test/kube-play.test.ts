import { createScratchDatabase, createScratchVhost, type ScratchDatabase, type ScratchVhost } from '@platform/test-kit';
import {
  buildImages,
  type BuiltImage,
  containerOf,
  hasPodman,
  type LocalSystem,
  playLocal,
  podman,
  secretsInImage,
  SERVICES,
  takeDownLocal,
  writeLocalSecrets,
} from '@tools/deploy';
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { type CurlAnswer, jsonAnswers, runReadmeWalkthrough } from './support';

/** In CI (or with REQUIRE_PODMAN=1) a machine without podman fails the run instead of skipping. */
const podmanRequired = process.env.REQUIRE_PODMAN === '1' || process.env.CI === 'true';
const REDIS_URL = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';
/** A tag of the test's own, so the images it builds and removes are never a developer's. */
const TAG = `kube-play-test-${process.pid}`;

// The images as `pnpm images` builds them, played as `pnpm kube:play` plays the local overlay (ADR 0028): every
// service in a pod of its own, on the machine's PostgreSQL, RabbitMQ and Redis, and the README's walkthrough through
// the gateway in its pod. Every wait is bounded, and everything the suite made is removed, whatever happens.
describe('the images, played from the local overlay with podman', function () {
  this.timeout(900_000);
  let stockDatabase: ScratchDatabase;
  let salesDatabase: ScratchDatabase;
  let vhost: ScratchVhost;
  let secrets: string[];
  let images: BuiltImage[] = [];
  let system: LocalSystem;

  before(async function () {
    if (!hasPodman()) {
      if (podmanRequired) throw new Error('podman is required (CI installs it: .ci/run) but is not installed');
      console.warn(
        `  ! podman is not installed: skipping "${this.test?.parent?.fullTitle()}". Set REQUIRE_PODMAN=1 to fail instead.`,
      );
      this.skip();
    }
    stockDatabase = await createScratchDatabase(this);
    salesDatabase = await createScratchDatabase(this);
    vhost = await createScratchVhost(this);
    // The secrets exist on the machine before the images are built: none of them may end up in one.
    secrets = await writeLocalSecrets({
      stockDatabaseUrl: stockDatabase.url,
      salesDatabaseUrl: salesDatabase.url,
      amqpUrl: vhost.url,
      redisUrl: REDIS_URL,
    });
    images = await buildImages({ tag: TAG, quiet: true });
    system = await playLocal(TAG);
  });

  after(async () => {
    if (!hasPodman()) return;
    takeDownLocal();
    for (const { image } of images) podman(['image', 'rm', '--force', image]);
    await vhost?.drop();
    await stockDatabase?.drop();
    await salesDatabase?.drop();
  });

  it('builds an image of every service, tagged, on the distroless base', () => {
    expect(images.map((image) => image.service)).to.deep.equal(SERVICES.map((service) => service.name));
    for (const { image } of images) {
      expect(image).to.match(new RegExp(`^localhost/commerce/[a-z-]+:${TAG}$`));
      // No shell in the image: the base has node and its libraries only.
      const shell = () => podman(['run', '--rm', '--entrypoint', '/bin/sh', image, '-c', 'true'], 60_000);
      expect(shell, image).to.throw();
    }
  });

  it('runs each service as the non-root user, on a read-only root, as PID 1', () => {
    for (const service of SERVICES) {
      const container = containerOf(service.name);
      const [user, readOnly] = podman([
        'inspect',
        '--format',
        '{{.Config.User}} {{.HostConfig.ReadonlyRootfs}}',
        container,
      ]).split(' ');
      expect({ service: service.name, user, readOnly }).to.deep.equal({
        service: service.name,
        user: '10001:10001',
        readOnly: 'true',
      });
      const top = podman(['top', container, 'huser', 'pid', 'args']);
      expect(top, service.name).to.match(
        /\n10001\s+1\s+\/usr\/local\/bin\/node --enable-source-maps dist\/service\.js/,
      );
    }
  });

  it('serves the README walkthrough through the gateway in its pod, paid at the provider in its own', async () => {
    // The whole walkthrough: the buyer confirms the intent at the provider's pod, whose webhook reaches sales through
    // the gateway's; then the order ships and a part of it comes back.
    const walkthrough = await runReadmeWalkthrough(system.gateway, '', {
      clientsFile: system.clientsFile,
      payments: system.payments,
      paymentsKey: system.paymentsApiKey,
    });
    const summary = (answer: CurlAnswer) =>
      answer.status ??
      (answer.lines
        ? answer.lines
            .map((line) => `${line.quantity}@${line.locationId}${line.disposition ? ` ${line.disposition}` : ''}`)
            .join()
        : `${answer.quantityInStock}/${answer.committedQuantity}/${answer.damagedQuantity}/${answer.availableQuantity}`);
    expect(jsonAnswers<CurlAnswer>(walkthrough).map(summary)).to.deep.equal([
      'reserved',
      'paid',
      '3/2/0/1',
      '2@1',
      '1@1 damaged',
      '2/0/1/1',
      401,
    ]);
  });

  it('serves the back office from the gateway’s image, and identity has its staff and Redis', async () => {
    const page = await fetch(`${system.gateway}/admin/`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-security-policy')).to.be.a('string').and.include("script-src 'self'");
    expect(await page.text()).to.include('<div id="root">');
    // identity read the users file kube:play made (the admin) and, having staff, its Redis: it would not start
    // without REDIS_URL.
    const started = podman(['logs', containerOf('identity')])
      .split('\n')
      .find((line) => line.includes('"users":'));
    expect(started).to.match(/"users":1\b/);
  });

  it('keeps every secret out of the image layers and the ConfigMaps', () => {
    // Every client's secret, the signing key's private part, the admin's password, the provider's key, and the
    // webhook's signing secret, made at the play: the search below is for something.
    const all = [...secrets, system.paymentsWebhookSecret];
    expect(all.length).to.be.at.least(8);
    const played = readFileSync(system.playedFile, 'utf8');
    expect(played).to.include('name: payments');
    expect(all.filter((secret) => played.includes(secret))).to.deep.equal([]);
    expect(images.map((image) => image.service)).to.include('payments');
    for (const { image } of images) expect(secretsInImage(image, all)).to.deep.equal([]);
  });

  it('stops every service on SIGTERM, gracefully (exit 0)', () => {
    const containers = SERVICES.map((service) => containerOf(service.name));
    podman(['stop', '--time', '30', ...containers], 120_000);
    for (const container of containers) {
      const code = podman(['inspect', '--format', '{{.State.ExitCode}}', container]);
      expect({ container, code }).to.deep.equal({ container, code: '0' });
    }
  });
});
