/**
 * pnpm images [--tag T] [service…]: builds dist/, the distroless base and an image per service (all, or those named),
 * tagged with the commit unless --tag says otherwise, then lists them with their sizes.
 */
import { parseArgs } from 'node:util';
import { buildImages } from './images';
import { SERVICES } from './services';

const { values, positionals } = parseArgs({ options: { tag: { type: 'string' } }, allowPositionals: true });
const unknown = positionals.filter((name) => !SERVICES.some((service) => service.name === name));
if (unknown.length > 0) {
  process.stderr.write(`images: no service ${unknown.join(', ')}; known: ${SERVICES.map((s) => s.name).join(', ')}\n`);
  process.exit(2);
}
const started = performance.now();
const built = await buildImages({ tag: values.tag, only: positionals.length > 0 ? positionals : undefined });
const seconds = ((performance.now() - started) / 1000).toFixed(0);
process.stdout.write(`images: ${built.length} built in ${seconds} s; push one with\n`);
process.stdout.write(
  `  skopeo copy containers-storage:${built[0]!.image} docker://<registry>/${built[0]!.image.slice('localhost/'.length)}\n`,
);
