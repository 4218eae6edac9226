/**
 * The main thread's instruction count from a callgrind output file: its `totals:` line, or `summary:` when that is all
 * it has.
 */
export function instructionsOf(callgrindOutput: string): number {
  const totals = /^totals:\s+(\d+)/m.exec(callgrindOutput) ?? /^summary:\s+(\d+)/m.exec(callgrindOutput);
  if (!totals) throw new Error('no totals in the callgrind output');
  return Number(totals[1]);
}
