import { Parser } from '@asyncapi/parser';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const WARNING = 1;
const SEVERITY_NAMES = ['error', 'warning', 'info', 'hint'];

interface Finding {
  readonly severity: number;
  readonly path: ReadonlyArray<string | number>;
  readonly message: string;
  readonly code: string | number;
}

function describe(file: string, finding: Finding): string {
  return `${file} ${finding.path.join('.') || '(root)'}: ${SEVERITY_NAMES[finding.severity]} ${finding.code} ${finding.message}`;
}

async function problemsIn(path: string): Promise<string[]> {
  const { diagnostics } = await new Parser().parse(readFileSync(path, 'utf8'), { source: path });
  const file = relative(process.cwd(), path);
  // A number: the parser's severity enum and the one it exports come from two versions of @stoplight/types.
  return diagnostics.filter((finding) => Number(finding.severity) <= WARNING).map((f) => describe(file, f));
}

async function main(paths: string[]): Promise<void> {
  const problems = (await Promise.all(paths.map(problemsIn))).flat();
  for (const problem of problems) console.error(problem);
  console.log(`AsyncAPI: ${paths.length} file(s), ${problems.length} problem(s)`);
  if (problems.length > 0) process.exitCode = 1;
}

await main(process.argv.slice(2));
