import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BEGIN,
  COLUMNS,
  drillsSection,
  END,
  header,
  markdownReport,
  type NamedResult,
  writeIntoOperations,
} from '../src/report';

const OPERATIONS = fileURLToPath(new URL('../../../docs/operations.md', import.meta.url));
const meta = { date: '2026-11-24 12:00Z', node: 'v20', mode: 'full' };
const result = (changes: Partial<NamedResult> = {}): NamedResult => ({
  name: 'kill-nine',
  drill: 'kill -9 of each process in turn',
  requests: 847,
  failed: 265,
  convergedMs: 37_240,
  figures: { killed: 'stock b, sales a' },
  kept: ['every order is in a final state', 'none had two effects'],
  broken: [],
  ...changes,
});

describe('the drills report', () => {
  it('has one row per drill under the columns the operations doc has: requests sent, failed, time to converge, checks held', () => {
    const lines = markdownReport(
      [result(), result({ name: 'soak', drill: 'Soak', convergedMs: undefined, kept: ['a'], broken: ['b: {"x":1}'] })],
      meta,
    ).split('\n');
    const top = lines.indexOf(header()[0]!);
    expect(lines[top]).to.equal('| Drill | Requests sent | Failed | Time to converge | Checks held |');
    expect(lines[top + 2]).to.equal('| kill -9 of each process in turn (`kill-nine`) | 847 | 265 | 37.2 s | 2 of 2 |');
    expect(lines[top + 3]).to.equal('| Soak (`soak`) | 847 | 265 | – | **1 of 2** |');
    expect(lines).to.include('**kill -9 of each process in turn.** killed: stock b, sales a.');
    expect(lines).to.include('- **broken**: b: {"x":1}');
  });

  it('matches the table prepared in docs/operations.md, column for column, with a row for every drill', () => {
    const section = drillsSection(readFileSync(OPERATIONS, 'utf8'));
    const [columns, alignment] = header();
    expect(section).to.contain(`${columns}\n${alignment}\n`);
    expect(COLUMNS).to.have.length(5);
    for (const name of ['concurrency', 'rolling-restart', 'kill-nine', 'postgres-restart', 'rabbitmq-restart', 'soak'])
      expect(section).to.contain(`(\`${name}\`)`);
  });

  it('replaces only what lies between the drills markers of the doc, and refuses a doc without them', () => {
    const folder = mkdtempSync(join(tmpdir(), 'drills-report-'));
    try {
      const path = join(folder, 'operations.md');
      writeFileSync(path, `# Ops\n\nbefore\n\n${BEGIN}\n\nold table\n\n${END}\n\nafter\n`);
      writeIntoOperations(path, '| new | table |\n');
      expect(readFileSync(path, 'utf8')).to.equal(
        `# Ops\n\nbefore\n\n${BEGIN}\n\n| new | table |\n\n${END}\n\nafter\n`,
      );
      writeFileSync(path, '# Ops without markers\n');
      expect(() => writeIntoOperations(path, 'x')).to.throw(/drills:begin/);
      expect(readFileSync(path, 'utf8')).to.equal('# Ops without markers\n');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
