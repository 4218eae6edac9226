import { expect } from 'chai';
import type { Stats } from 'node:fs';
import { othersMayReach } from '../src/private-file';

const file = (mode: number, gid: number) => ({ mode: 0o100000 | mode, gid }) as Stats;

describe('a file of secrets', () => {
  it('is private when its owner alone may read it', () => {
    expect(othersMayReach(file(0o600, 5), [1])).to.equal(false);
    expect(othersMayReach(file(0o400, 5), [1])).to.equal(false);
  });

  it("is private when only its group may also read it and the service is in that group (a Secret's fsGroup)", () => {
    expect(othersMayReach(file(0o440, 10001), [10001])).to.equal(false);
    expect(othersMayReach(file(0o640, 10001), [1, 10001])).to.equal(false);
  });

  it('is not when its group is one the service is not in', () => {
    expect(othersMayReach(file(0o640, 5), [1])).to.equal(true);
  });

  it('is not when its group may write it, or any other user may read or write it', () => {
    for (const mode of [0o660, 0o620, 0o604, 0o602, 0o644, 0o601])
      expect(othersMayReach(file(mode, 10001), [10001]), mode.toString(8)).to.equal(true);
  });
});
