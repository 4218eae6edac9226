import { readFileSync, writeFileSync } from 'node:fs';
import type { DrillResult } from './system';

/** A drill's result under the name `pnpm drills` knows it by. */
export type NamedResult = DrillResult & { readonly name: string };

/** The columns of the drills table: `pnpm drills` prints them, and docs/operations.md's table has the same. */
export const COLUMNS = ['Drill', 'Requests sent', 'Failed', 'Time to converge', 'Checks held'] as const;

const seconds = (ms: number | undefined) => (ms === undefined ? '–' : `${(ms / 1000).toFixed(1)} s`);

/** A markdown table row of `cells`. */
export const row = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;

/** The table's header and its alignment line. */
export const header = () => [row(COLUMNS), row(['---', '---:', '---:', '---:', '---'])];

/** The drills as a markdown table, then each drill's figures and checks. */
export function markdownReport(
  results: readonly NamedResult[],
  meta: { date: string; node: string; mode: string },
): string {
  const lines = [
    `Run ${meta.date} (${meta.mode}), Node ${meta.node}, on this 2-core VM with PostgreSQL, RabbitMQ and the load generator on the same cores.`,
    '',
    ...header(),
    ...results.map((r) => {
      const checks = r.kept.length + r.broken.length;
      return row([
        `${r.drill} (\`${r.name}\`)`,
        r.requests,
        r.failed,
        seconds(r.convergedMs),
        r.broken.length === 0 ? `${checks} of ${checks}` : `**${r.kept.length} of ${checks}**`,
      ]);
    }),
    '',
  ];
  for (const r of results) {
    const figures = Object.entries(r.figures).map(([name, value]) => `${name}: ${value}`);
    lines.push(`**${r.drill}.**${figures.length > 0 ? ` ${figures.join('; ')}.` : ''}`, '');
    for (const kept of r.kept) lines.push(`- held: ${kept}`);
    for (const broken of r.broken) lines.push(`- **broken**: ${broken}`);
    lines.push('');
  }
  return lines.join('\n');
}

export const BEGIN = '<!-- drills:begin (written by pnpm drills) -->';
export const END = '<!-- drills:end -->';

/** The drills section of the text of docs/operations.md (between the markers). */
export function drillsSection(text: string): string {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`no ${BEGIN} … ${END} section`);
  return text.slice(start + BEGIN.length, end);
}

/** Replaces the drills section of docs/operations.md with `report`. */
export function writeIntoOperations(path: string, report: string): void {
  const text = readFileSync(path, 'utf8');
  drillsSection(text);
  writeFileSync(
    path,
    `${text.slice(0, text.indexOf(BEGIN) + BEGIN.length)}\n\n${report.trim()}\n\n${text.slice(text.indexOf(END))}`,
  );
}
