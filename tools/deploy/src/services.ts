/**
 * The services that get an image, one line each: the bundle `pnpm build` writes (dist/<bundle>.js), the port it
 * listens on, and the workspace files it reads at run time (its OpenAPI descriptions, found from where its source
 * sits). Adding a service's image is adding its line; its manifests are a file of deploy/kubernetes/base.
 */
export interface ImagedService {
  /** The image's name (commerce/<name>) and the Deployment's. */
  readonly name: string;
  readonly bundle: string;
  readonly port: number;
  readonly files: readonly string[];
}

export const SERVICES: readonly ImagedService[] = [
  { name: 'identity', bundle: 'identity', port: 8083, files: [] },
  { name: 'stock', bundle: 'stock', port: 8080, files: ['docs/openapi.yaml'] },
  { name: 'sales', bundle: 'sales', port: 8082, files: ['docs/sales.openapi.yaml'] },
  { name: 'gateway', bundle: 'gateway', port: 8000, files: ['docs/openapi.yaml', 'docs/sales.openapi.yaml'] },
  { name: 'sample-app', bundle: 'sample', port: 8081, files: ['docs/sample-app.openapi.yaml'] },
];

/** Where images live before a registry: podman's local store names them localhost/…. */
export const LOCAL_REGISTRY = 'localhost';

/** An image's name without registry or tag, as the manifests name it (kustomize's `images` set the rest). */
export const imageName = (service: ImagedService) => `commerce/${service.name}`;
