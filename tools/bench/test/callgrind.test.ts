import { expect } from 'chai';
import { instructionsOf } from '../src/callgrind';

describe('reading a callgrind output', () => {
  it('takes the totals line, which callgrind writes when instrumentation was switched on and off', () => {
    expect(instructionsOf('version: 1\nevents: Ir\nsummary: 0\n\nfn=(1) main\n3 12\ntotals: 656406752\n')).to.equal(
      656_406_752,
    );
  });

  it('falls back to the summary line, and refuses a file with neither', () => {
    expect(instructionsOf('events: Ir\nsummary: 42\n')).to.equal(42);
    expect(() => instructionsOf('events: Ir\n')).to.throw(/no totals/);
  });
});
