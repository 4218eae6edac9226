import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ROOT } from './podman';

/** A rendered object, as far as the checks read it. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly [field: string]: unknown;
}

export const OVERLAYS = ['local', 'production'] as const;
export type Overlay = (typeof OVERLAYS)[number];

export const overlayFolder = (overlay: Overlay) => join(ROOT, 'deploy', 'kubernetes', 'overlays', overlay);

/** The overlay as `kubectl kustomize` renders it, offline. */
export function renderOverlay(overlay: Overlay): KubeObject[] {
  const rendered = execFileSync('kubectl', ['kustomize', overlayFolder(overlay)], {
    encoding: 'utf8',
    timeout: 60_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return parseObjects(rendered);
}

export function parseObjects(yaml: string): KubeObject[] {
  return parseAllDocuments(yaml)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

interface PodTemplateHolder {
  spec: { template: { spec: { containers: { image: string }[]; initContainers?: { image: string }[] } } };
}

/**
 * The objects with every image that names no tag given `tag`, as `kustomize edit set image …:<tag>` does at a
 * release: the overlays leave the tag to the build that made the images.
 */
export function withImageTag(objects: readonly KubeObject[], tag: string): KubeObject[] {
  const tagged = structuredClone(objects) as KubeObject[];
  for (const object of tagged.filter((o) => o.kind === 'Deployment') as unknown as PodTemplateHolder[]) {
    const pod = object.spec.template.spec;
    for (const container of [...pod.containers, ...(pod.initContainers ?? [])])
      if (!imageTagOf(container.image)) container.image = `${container.image}:${tag}`;
  }
  return tagged;
}

/** The tag an image reference names, if any (a registry's port is not a tag; a digest counts as one). */
export function imageTagOf(image: string): string | undefined {
  if (image.includes('@')) return image.slice(image.indexOf('@') + 1);
  const lastPart = image.slice(image.lastIndexOf('/') + 1);
  return lastPart.includes(':') ? lastPart.slice(lastPart.indexOf(':') + 1) : undefined;
}
