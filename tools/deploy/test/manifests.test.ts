import { expect } from 'chai';
import {
  CLUSTER_SERVICES,
  imageTagOf,
  type KubeObject,
  looksSecret,
  manifestProblems,
  OVERLAYS,
  renderOverlay,
  SECOND_REPLICAS,
  SERVICES,
  withImageTag,
  withSecondReplicas,
} from '../src/index';

interface Container {
  name: string;
  image: string;
  resources?: { limits?: Record<string, string> };
  readinessProbe?: unknown;
  securityContext: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; runAsUser?: number };
}
interface Pod {
  terminationGracePeriodSeconds?: number;
  securityContext: { runAsNonRoot?: boolean; runAsUser?: number };
  containers: Container[];
  volumes?: { name: string; secret?: { defaultMode?: number } }[];
}

/** A copy of the objects with the named Deployment's pod changed by `change`. */
function changed(objects: readonly KubeObject[], name: string, change: (pod: Pod) => void): KubeObject[] {
  const copy = structuredClone(objects) as KubeObject[];
  const deployment = copy.find((o) => o.kind === 'Deployment' && o.metadata.name === name) as unknown as {
    spec: { template: { spec: Pod } };
  };
  change(deployment.spec.template.spec);
  return copy;
}

// The rendered overlays (kubectl kustomize, offline) against kubernetes-models and the project's rules (ADR 0028).
describe('the Kubernetes manifests (deploy/kubernetes)', function () {
  this.timeout(60_000);
  for (const overlay of OVERLAYS) {
    describe(`the ${overlay} overlay`, () => {
      let objects: KubeObject[];
      before(() => {
        objects = withImageTag(renderOverlay(overlay), 'c0ffee123456');
      });

      it('passes the schema and every check once its images are tagged', () => {
        expect(manifestProblems(objects)).to.deep.equal([]);
      });

      // The offline payment provider, a test double, is the local overlay's alone: a cluster pays through Stripe.
      const deployed = overlay === 'local' ? SERVICES : CLUSTER_SERVICES;

      it('deploys every service that has an image, each with a Service', () => {
        const names = (kind: string) => objects.filter((o) => o.kind === kind).map((o) => o.metadata.name);
        const services = deployed.map((service) => service.name).sort();
        expect(names('Deployment').sort()).to.deep.equal(services);
        expect(names('Service').sort()).to.deep.equal(services);
      });

      it('refuses images without a tag, as the overlay leaves them', () => {
        expect(manifestProblems(renderOverlay(overlay)).filter((p) => p.endsWith('has no tag'))).to.have.length(
          deployed.length,
        );
      });

      it('names the staff file and Redis of identity, and the back office of the gateway, never their secrets', () => {
        const settings = (name: string) =>
          objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith(`${name}-`))!.data as Record<
            string,
            string
          >;
        expect(settings('identity')).to.include({
          IDENTITY_USERS_FILE: '/etc/commerce/secrets/users.json',
          IDENTITY_CONFIG: '/etc/commerce/secrets/config.json',
        });
        expect(settings('identity')).not.to.have.property('REDIS_URL');
        expect(settings('gateway')).to.include({ BACK_OFFICE_DIR: '/app/packages/back-office/dist' });
        const sales = settings('sales');
        for (const secret of ['PAYMENTS_API_KEY', 'PAYMENTS_WEBHOOK_SECRET'])
          expect(sales).not.to.have.property(secret);
        if (overlay === 'local') expect(sales.PAYMENTS_URL).to.equal('http://127.0.0.1:8084');
        else expect(sales).not.to.have.property('PAYMENTS_URL');
      });
    });
  }

  describe('the checks', () => {
    let objects: KubeObject[];
    before(() => {
      objects = withImageTag(renderOverlay('production'), 'c0ffee123456');
    });

    it('find a container without limits, a probe, a read-only root or a non-root user', () => {
      const broken = changed(objects, 'stock', (pod) => {
        const container = pod.containers[0]!;
        delete container.resources!.limits;
        delete container.readinessProbe;
        container.securityContext.readOnlyRootFilesystem = false;
        container.securityContext.allowPrivilegeEscalation = true;
        container.securityContext.runAsUser = 0;
      });
      expect(manifestProblems(broken)).to.include.members([
        'Deployment stock, container stock: no cpu limit',
        'Deployment stock, container stock: no memory limit',
        'Deployment stock, container stock: no readinessProbe',
        'Deployment stock, container stock: may run as root (runAsNonRoot, runAsUser ≠ 0)',
        'Deployment stock, container stock: allowPrivilegeEscalation is not false',
        'Deployment stock, container stock: its root filesystem is writable',
      ]);
    });

    it('find the latest tag, and a secret volume others may read', () => {
      const broken = changed(objects, 'sales', (pod) => {
        pod.containers[0]!.image = 'registry.example.com/commerce/sales:latest';
        pod.volumes!.find((volume) => volume.secret)!.secret!.defaultMode = 0o644;
      });
      expect(manifestProblems(broken)).to.include.members([
        'Deployment sales, container sales: image registry.example.com/commerce/sales:latest is tagged latest',
        'Deployment sales: secret volume secrets is readable beyond its owner (defaultMode)',
      ]);
    });

    it('find a termination grace shorter than the service’s own stop', () => {
      const broken = changed(objects, 'gateway', (pod) => (pod.terminationGracePeriodSeconds = 15));
      expect(manifestProblems(broken)).to.deep.equal([
        "Deployment gateway: terminationGracePeriodSeconds (15 s) is not above the service's stop (21 s)",
      ]);
    });

    it('hold the payment provider’s stop to its own settings, as every service’s', () => {
      const local = withImageTag(renderOverlay('local'), 'c0ffee123456');
      expect(
        manifestProblems(changed(local, 'payments', (pod) => (pod.terminationGracePeriodSeconds = 20))),
      ).to.deep.equal([
        "Deployment payments: terminationGracePeriodSeconds (20 s) is not above the service's stop (21 s)",
      ]);
      const probedSlowly = changed(local, 'payments', (pod) => {
        (pod.containers[0]!.readinessProbe as { periodSeconds: number }).periodSeconds = 10;
      });
      expect(manifestProblems(probedSlowly)).to.deep.equal([
        'Deployment payments: its readiness probe may take 12 s to see a stop, longer than SHUTDOWN_DELAY_MS (5000 ms)',
      ]);
    });

    it('pass the local overlay with a second replica of stock and sales, as the drills play it', () => {
      const local = withImageTag(renderOverlay('local'), 'c0ffee123456');
      const doubled = withSecondReplicas(local);
      expect(manifestProblems(doubled)).to.deep.equal([]);
      const deploymentNames = doubled.filter((o) => o.kind === 'Deployment').map((o) => o.metadata.name);
      expect(deploymentNames).to.include.members([SECOND_REPLICAS.stock.name, SECOND_REPLICAS.sales.name]);
      const gateway = doubled.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('gateway-'))!
        .data as Record<string, string>;
      expect(gateway.STOCK_URL).to.equal('http://127.0.0.1:8080,http://127.0.0.1:8180');
      expect(gateway.SALES_URL).to.equal('http://127.0.0.1:8082,http://127.0.0.1:8182');
      // The rendered objects are left as they were.
      expect(local.filter((o) => o.kind === 'Deployment')).to.have.length(SERVICES.length);
    });

    it('find a secret in a ConfigMap', () => {
      const broken = structuredClone<KubeObject[]>(objects);
      const configMap = broken.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('sales')) as {
        data: Record<string, string>;
      } & KubeObject;
      configMap.data.STOCK_CLIENT_SECRET = 'a-secret-of-forty-characters-or-so-0123';
      configMap.data.AMQP_URL = 'amqp://app:hunter2@mq:5672/commerce';
      expect(manifestProblems(broken).filter((p) => p.includes('looks like a secret'))).to.deep.equal([
        `ConfigMap ${configMap.metadata.name}: STOCK_CLIENT_SECRET looks like a secret; secrets go in a Secret, mounted as a file`,
        `ConfigMap ${configMap.metadata.name}: AMQP_URL looks like a secret; secrets go in a Secret, mounted as a file`,
      ]);
    });

    it('find what the Kubernetes schema refuses', () => {
      const broken = changed(objects, 'identity', (pod) => {
        (pod as unknown as { containers: unknown }).containers = 'identity';
      });
      expect(manifestProblems(broken).some((p) => p.startsWith('Deployment identity: '))).to.equal(true);
    });

    it('tell a secret from a setting', () => {
      expect(looksSecret('STOCK_CLIENT_SECRET', 'x')).to.equal(true);
      expect(looksSecret('WEBHOOK_SECRETS_KEY', 'x')).to.equal(true);
      expect(looksSecret('DATABASE_URL', 'postgres://app:pw@db/stock')).to.equal(true);
      expect(looksSecret('DATABASE_URL', 'postgres://app@db/stock')).to.equal(false);
      expect(looksSecret('IDENTITY_KEYS_FILE', '/etc/commerce/secrets/keys.json')).to.equal(false);
      expect(looksSecret('STOCK_CLIENT_ID', 'sales-service')).to.equal(false);
      expect(looksSecret('ACCESS_TOKEN_TTL_SECONDS', '600')).to.equal(false);
      expect(looksSecret('ACCESS_TOKEN_TTL_SECONDS', 'a-token-in-the-wrong-place')).to.equal(true);
    });

    it('read an image’s tag, not a registry’s port', () => {
      expect(imageTagOf('registry.example.com:5000/commerce/stock')).to.equal(undefined);
      expect(imageTagOf('registry.example.com:5000/commerce/stock:abc')).to.equal('abc');
      expect(imageTagOf('commerce/stock@sha256:00')).to.equal('sha256:00');
    });
  });
});
