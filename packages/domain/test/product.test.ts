import { expect } from 'chai';
import { longerThan } from '../src';

describe('longerThan', () => {
  it('counts code points, so an emoji is one character and a lone surrogate is one too', () => {
    expect(longerThan('abc', 3)).to.equal(false);
    expect(longerThan('abcd', 3)).to.equal(true);
    expect(longerThan('🚀'.repeat(200), 200)).to.equal(false);
    expect(longerThan('🚀'.repeat(201), 200)).to.equal(true);
    expect(longerThan(`${'a'.repeat(199)}\ud83d`, 200)).to.equal(false);
    expect(longerThan(`${'a'.repeat(200)}\ud83d`, 200)).to.equal(true);
    expect(longerThan('\udc00'.repeat(201), 200)).to.equal(true);
    for (const text of ['\udc00\ud800'.repeat(101), 'x\ud83d\ude80'.repeat(70), '\ud800'.repeat(250)]) {
      expect(longerThan(text, 200), JSON.stringify(text)).to.equal([...text].length > 200);
    }
  });
});
