import { expect } from 'chai';
import {
  imageTagOf,
  type KubeObject,
  looksSecret,
  manifestProblems,
  OVERLAYS,
  renderOverlay,
  SERVICES,
  withImageTag,
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

      it('deploys every service that has an image, each with a Service', () => {
        const names = (kind: string) => objects.filter((o) => o.kind === kind).map((o) => o.metadata.name);
        const services = SERVICES.map((service) => service.name).sort();
        expect(names('Deployment').sort()).to.deep.equal(services);
        expect(names('Service').sort()).to.deep.equal(services);
      });

      it('refuses images without a tag, as the overlay leaves them', () => {
        expect(manifestProblems(renderOverlay(overlay)).filter((p) => p.endsWith('has no tag'))).to.have.length(
          SERVICES.length,
        );
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
    });

    it('read an image’s tag, not a registry’s port', () => {
      expect(imageTagOf('registry.example.com:5000/commerce/stock')).to.equal(undefined);
      expect(imageTagOf('registry.example.com:5000/commerce/stock:abc')).to.equal('abc');
      expect(imageTagOf('commerce/stock@sha256:00')).to.equal('sha256:00');
    });
  });
});
