import { buildDist } from '@tools/build';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBase, podman, revisionTag, ROOT, run } from './podman';
import { BACK_OFFICE_BUILD, imageName, type ImagedService, LOCAL_REGISTRY, SERVICES } from './services';
import { stageService } from './stage';

export interface BuiltImage {
  readonly service: string;
  /** localhost/commerce/<service>:<tag> */
  readonly image: string;
  /** As podman counts it: the uncompressed layers, the base's included. */
  readonly bytes: number;
  readonly packages: number;
}

export const localImage = (service: ImagedService, tag: string) => `${LOCAL_REGISTRY}/${imageName(service)}:${tag}`;

/** One service's image, from its staged files; the folder it was staged in is removed whatever happens. */
function buildImage(service: ImagedService, base: string, tag: string): BuiltImage {
  const context = mkdtempSync(join(tmpdir(), `image-${service.name}-`));
  try {
    const staged = stageService(ROOT, service, context);
    const image = localImage(service, tag);
    podman([
      'build',
      '--pull=never',
      '--quiet',
      '--file',
      join(ROOT, 'deploy', 'images', 'Containerfile'),
      '--build-arg',
      `BASE=${base}`,
      '--build-arg',
      `SERVICE=${service.name}`,
      '--build-arg',
      `PORT=${service.port}`,
      '--build-arg',
      `REVISION=${tag}`,
      '--tag',
      image,
      context,
    ]);
    const bytes = Number(podman(['image', 'inspect', '--format', '{{.Size}}', image]));
    return { service: service.name, image, bytes, packages: staged.packages.length };
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

/**
 * `pnpm images`: dist/ built afresh (and the back office, when an image carries it), the base, then one image per
 * service, one at a time (the machine's cores are shared), each tagged with the commit.
 */
export async function buildImages(
  options: { tag?: string; only?: readonly string[]; quiet?: boolean } = {},
): Promise<BuiltImage[]> {
  const tag = options.tag ?? revisionTag();
  const say = (line: string) => {
    if (!options.quiet) process.stdout.write(`${line}\n`);
  };
  await buildDist();
  const chosen = SERVICES.filter((s) => !options.only || options.only.includes(s.name));
  if (chosen.some((service) => service.files.includes(BACK_OFFICE_BUILD))) {
    run('pnpm', ['build:back-office'], 300_000);
    say(`images: the back office built into ${BACK_OFFICE_BUILD}`);
  }
  const base = buildBase();
  say(`images: base ${base}`);
  const built: BuiltImage[] = [];
  for (const service of chosen) {
    const image = buildImage(service, base, tag);
    say(`images: ${image.image} (${(image.bytes / 1e6).toFixed(0)} MB, ${image.packages} packages)`);
    built.push(image);
  }
  return built;
}
