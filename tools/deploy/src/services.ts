/**
 * The services that get an image, one line each: the bundle `pnpm build` writes (dist/<bundle>.js), the port it
 * listens on, and the workspace files and folders it reads at run time (its OpenAPI descriptions, the back office's
 * build: found from where its source sits). Adding a service's image is adding its line; its manifests are a file of
 * deploy/kubernetes/base (or of the local overlay, for a test double).
 */
/** Where `pnpm build:back-office` writes the back office, which the gateway's image carries. */
export const BACK_OFFICE_BUILD = 'packages/back-office/dist';

export interface ImagedService {
  /** The image's name (commerce/<name>) and the Deployment's. */
  readonly name: string;
  readonly bundle: string;
  readonly port: number;
  readonly files: readonly string[];
  /**
   * Deployed by the local overlay only: the offline payment provider, a test double of Stripe's API that a cluster
   * replaces with Stripe itself (production leaves PAYMENTS_URL unset).
   */
  readonly localOnly?: boolean;
}

export const SERVICES: readonly ImagedService[] = [
  { name: 'identity', bundle: 'identity', port: 8083, files: [] },
  { name: 'payments', bundle: 'payments', port: 8084, files: [], localOnly: true },
  { name: 'stock', bundle: 'stock', port: 8080, files: ['docs/openapi.yaml'] },
  { name: 'sales', bundle: 'sales', port: 8082, files: ['docs/sales.openapi.yaml'] },
  {
    name: 'gateway',
    bundle: 'gateway',
    port: 8000,
    // The back office's static files (pnpm build:back-office), served at /admin/ (BACK_OFFICE_DIR).
    files: ['docs/openapi.yaml', 'docs/sales.openapi.yaml', BACK_OFFICE_BUILD],
  },
  { name: 'sample-app', bundle: 'sample', port: 8081, files: ['docs/sample-app.openapi.yaml'] },
];

/** Where images live before a registry: podman's local store names them localhost/…. */
export const LOCAL_REGISTRY = 'localhost';

/** An image's name without registry or tag, as the manifests name it (kustomize's `images` set the rest). */
export const imageName = (service: ImagedService) => `commerce/${service.name}`;

/** The services a cluster deploys (deploy/kubernetes/base and the production overlay): the test doubles left out. */
export const CLUSTER_SERVICES: readonly ImagedService[] = SERVICES.filter((service) => !service.localOnly);
