import { readFileSync, writeFileSync } from 'node:fs';
import type { DrillResult } from './system';

const seconds = (ms: number | undefined) => (ms === undefined ? '–' : `${(ms / 1000).toFixed(1)} s`);

/** The drills as a markdown table, then each drill's figures and checks. */
export function markdownReport(results: readonly DrillResult[], meta: { date: string; node: string; mode: string }): string {
  const lines = [
    `Run ${meta.date} (${meta.mode}), Node ${meta.node}, on this 2-core VM with PostgreSQL, RabbitMQ and the load generator on the same cores.`,
    '',
    '| Drill | Requests | Failed | Converged in | Checks |',
    '| --- | ---: | ---: | ---: | --- |',
    ...results.map((r) => `| ${r.drill} | ${r.requests} | ${r.failed} | ${seconds(r.convergedMs)} | ${r.broken.length === 0 ? `all ${r.kept.length} held` : `**${r.broken.length} broken**`} |`),
    '',
  ];
  for (const r of results) {
    lines.push(`**${r.drill}.** ${Object.entries(r.figures).map(([name, value]) => `${name}: ${value}`).join('; ')}.`, '');
    for (const kept of r.kept) lines.push(`- held: ${kept}`);
    for (const broken of r.broken) lines.push(`- **broken**: ${broken}`);
    lines.push('');
  }
  return lines.join('\n');
}

const BEGIN = '<!-- drills:begin (written by pnpm drills) -->';
const END = '<!-- drills:end -->';

/** Replaces the drills section of docs/operations.md with `report`. */
export function writeIntoOperations(path: string, report: string): void {
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${path} has no ${BEGIN} … ${END} section`);
  writeFileSync(path, `${text.slice(0, start + BEGIN.length)}\n\n${report.trim()}\n\n${text.slice(end)}`);
}
