import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { podman } from './podman';

interface OciIndex {
  manifests: { digest: string }[];
}

const blob = (folder: string, digest: string) => readFileSync(join(folder, 'blobs', ...digest.split(':')));

/**
 * The values of `secrets` found in any layer of `image` (or its configuration: labels, environment, history), each
 * with the layer it is in. Reads the image as `podman image save` writes it, every layer whole.
 */
export function secretsInImage(image: string, secrets: readonly string[]): string[] {
  const folder = mkdtempSync(join(tmpdir(), 'image-layers-'));
  try {
    podman(['image', 'save', '--format', 'oci-dir', '--output', folder, image], 300_000);
    const index = JSON.parse(readFileSync(join(folder, 'index.json'), 'utf8')) as OciIndex;
    const manifest = JSON.parse(blob(folder, index.manifests[0]!.digest).toString('utf8')) as {
      config: { digest: string };
      layers: { digest: string }[];
    };
    const found: string[] = [];
    for (const { digest } of [manifest.config, ...manifest.layers]) {
      const stored = blob(folder, digest);
      const content = stored[0] === 0x1f && stored[1] === 0x8b ? gunzipSync(stored) : stored;
      for (const secret of secrets) if (content.includes(secret)) found.push(`${image} ${digest}: ${secret}`);
    }
    return found;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
