/**
 * pnpm drills [names…] [--short] [--no-docs]: runs the drills (all of them by
 * default), prints a table, writes drills-results/results.{json,md}, and,
 * unless --no-docs, the figures into docs/operations.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { concurrencyDrill, DRILLS, type DrillResult, killNineDrill, postgresRestartDrill, rabbitmqRestartDrill, rollingRestartDrill, SHORT, soakDrill } from './drills';
import { markdownReport, writeIntoOperations } from './report';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const { values, positionals } = parseArgs({ allowPositionals: true, options: { short: { type: 'boolean', default: false }, 'no-docs': { type: 'boolean', default: false } } });
const short: Record<string, () => Promise<DrillResult>> = {
  concurrency: () => concurrencyDrill(SHORT.concurrency),
  'rolling-restart': () => rollingRestartDrill(SHORT.rolling),
  'kill-nine': () => killNineDrill(SHORT.kill),
  'postgres-restart': () => postgresRestartDrill(SHORT.postgres),
  'rabbitmq-restart': () => rabbitmqRestartDrill(SHORT.rabbit),
  soak: () => soakDrill(SHORT.soak),
};
const table = values.short ? short : DRILLS;
const names = positionals.length > 0 ? positionals : Object.keys(table);
const unknown = names.filter((name) => !table[name]);
if (unknown.length > 0) {
  process.stderr.write(`pnpm drills: unknown drill ${unknown.join(', ')}; known: ${Object.keys(table).join(', ')}\n`);
  process.exit(2);
}

const results: DrillResult[] = [];
for (const name of names) {
  const started = Date.now();
  process.stderr.write(`${new Date().toISOString().slice(11, 19)}  ${name}…\n`);
  try {
    results.push(await table[name]!());
  } catch (error) {
    results.push({ drill: name, requests: 0, failed: 0, convergedMs: undefined, figures: {}, kept: [], broken: [`the drill could not run: ${(error as Error).message.split('\n')[0]}`] });
  }
  const last = results.at(-1)!;
  process.stderr.write(`${new Date().toISOString().slice(11, 19)}  ${name}: ${last.broken.length === 0 ? 'held' : `${last.broken.length} broken`} in ${Math.round((Date.now() - started) / 1000)} s\n`);
}
const meta = { date: new Date().toISOString().slice(0, 16).replace('T', ' ') + 'Z', node: process.version, mode: values.short ? 'short' : 'full' };
const report = markdownReport(results, meta);
mkdirSync(join(ROOT, 'drills-results'), { recursive: true });
writeFileSync(join(ROOT, 'drills-results', 'results.json'), `${JSON.stringify({ meta, results }, null, 2)}\n`);
writeFileSync(join(ROOT, 'drills-results', 'results.md'), report);
for (const result of results.filter((r) => r.logs)) {
  const file = join(ROOT, 'drills-results', `${result.drill.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.log`);
  writeFileSync(file, Object.entries(result.logs!).map(([name, lines]) => `== ${name}\n${lines.join('\n')}\n`).join('\n'));
}
if (!values['no-docs'] && !values.short && positionals.length === 0) writeIntoOperations(join(ROOT, 'docs', 'operations.md'), report);
process.stdout.write(report);
process.exit(results.every((result) => result.broken.length === 0) ? 0 : 1);
