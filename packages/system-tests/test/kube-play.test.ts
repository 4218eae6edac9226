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

  it('serves the README walkthrough through the gateway in its pod', async () => {
    // The payment provider has no image yet (it is a test double; docs/deployment.md): the walkthrough runs in the
    // pods up to the order held by stock and waiting for its payment.
    const walkthrough = await runReadmeWalkthrough(system.gateway, '', {
      clientsFile: system.clientsFile,
      until: '"intentId"',
    });
    const answers = jsonAnswers<CurlAnswer>(walkthrough);
    expect(answers.map((answer) => answer.status)).to.deep.equal(['reserved']);
  });

  it('keeps every secret out of the image layers and the ConfigMaps', () => {
    // Every development client's secret and the signing key's private part: the search below is for something.
    expect(secrets.length).to.be.at.least(5);
    const played = readFileSync(system.playedFile, 'utf8');
    expect(secrets.filter((secret) => played.includes(secret))).to.deep.equal([]);
    for (const { image } of images) expect(secretsInImage(image, secrets)).to.deep.equal([]);
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
