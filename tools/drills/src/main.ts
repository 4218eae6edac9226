/**
 * pnpm drills [names…] [--short] [--no-docs] [--images <tag> | --pods <tag>]: runs the drills (all of them by
 * default, at full size or, with --short, at CI's), prints a table, writes
 * drills-results/results.{md,json} (and each broken drill's process logs), and,
 * for a full run of every drill unless --no-docs, the section of
 * docs/operations.md between its drills markers. With --images, every instance
 * is a container of the images `pnpm images` tagged so (docs/deployment.md);
 * with --pods, the system is the local overlay played as `pnpm kube:play` plays
 * it from those images (a second replica of stock and sales beside it), and
 * only the rolling restart and the kill -9 run (POD_DRILLS). Either way the
 * doc's section is left as it is.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { runInImages, runInPods } from './containers';
import { DRILLS, stopAll } from './drills';
import { markdownReport, type NamedResult, writeIntoOperations } from './report';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const RESULTS = join(ROOT, 'drills-results');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    short: { type: 'boolean', default: false },
    'no-docs': { type: 'boolean', default: false },
    images: { type: 'string' },
    pods: { type: 'string' },
  },
});
/**
 * The drills the played pods run: their faults are a pod's (stopped, killed). The others restart PostgreSQL or
 * RabbitMQ, or need settings per instance, which the pods' manifests do not have.
 */
const POD_DRILLS = ['rolling-restart', 'kill-nine'];
if (values.images && values.pods) {
  process.stderr.write('pnpm drills: --images or --pods, not both\n');
  process.exit(2);
}
if (values.images) runInImages(values.images);
if (values.pods) runInPods(values.pods);
const known = values.pods ? POD_DRILLS : Object.keys(DRILLS);
const names = positionals.length > 0 ? positionals : known;
const unknown = names.filter((name) => !known.includes(name));
if (unknown.length > 0) {
  process.stderr.write(
    `pnpm drills: ${values.pods ? 'no drill against the pods named' : 'unknown drill'} ${unknown.join(', ')}; known: ${known.join(', ')}\n`,
  );
  process.exit(2);
}

// Interrupted, the run starts again what a drill stopped (PostgreSQL, RabbitMQ) and stops every process it started.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping the drill's processes…\n`);
    void stopAll().finally(() => process.exit(130));
  });
}

const clock = () => new Date().toISOString().slice(11, 19);
const results: NamedResult[] = [];
for (const name of names) {
  const started = Date.now();
  process.stderr.write(`${clock()}  ${name}…\n`);
  const drill = DRILLS[name]!;
  const result = await (values.short ? drill.short() : drill.full()).catch((error: Error): NamedResult => ({
    name,
    drill: name,
    requests: 0,
    failed: 0,
    convergedMs: undefined,
    figures: {},
    kept: [],
    broken: [`the drill could not run: ${error.message.split('\n')[0]}`],
  }));
  results.push({ ...result, name });
  process.stderr.write(
    `${clock()}  ${name}: ${result.broken.length === 0 ? 'held' : `${result.broken.length} broken`} in ${Math.round((Date.now() - started) / 1000)} s\n`,
  );
}
const meta = {
  date: new Date().toISOString().slice(0, 16).replace('T', ' ') + 'Z',
  node: process.version,
  mode: `${values.short ? 'short' : 'full'}${values.images ? `, in the images tagged ${values.images}` : ''}${values.pods ? `, against the pods of the local overlay played from the images tagged ${values.pods}` : ''}`,
};
const report = markdownReport(results, meta);
mkdirSync(RESULTS, { recursive: true });
writeFileSync(
  join(RESULTS, 'results.json'),
  `${JSON.stringify({ meta, results: results.map(({ logs: _, ...rest }) => rest) }, null, 2)}\n`,
);
writeFileSync(join(RESULTS, 'results.md'), report);
for (const result of results.filter((r) => r.logs)) {
  writeFileSync(
    join(RESULTS, `${result.name}.log`),
    Object.entries(result.logs!)
      .map(([name, lines]) => `== ${name}\n${lines.join('\n')}\n`)
      .join('\n'),
  );
}
const intoDocs = !values['no-docs'] && !values.short && !values.images && !values.pods && positionals.length === 0;
if (intoDocs) writeIntoOperations(join(ROOT, 'docs', 'operations.md'), report);
process.stdout.write(report);
process.stderr.write(`\nwritten: drills-results/results.md, results.json${intoDocs ? ', docs/operations.md' : ''}\n`);
process.exit(results.every((result) => result.broken.length === 0) ? 0 : 1);
