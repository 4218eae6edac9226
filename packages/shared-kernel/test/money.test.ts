import { Invalid } from '@platform/kernel';
import { expect } from 'chai';
import { Money } from '../src';

const why = (value: number) => {
  const parsed = Money.parse(value);
  return parsed instanceof Invalid ? parsed.message : parsed.toString();
};

describe('Money', () => {
  it('reads JSON numbers exactly, up to 15 significant digits', () => {
    for (const [value, text] of [
      [0, '0.00'],
      [0.1, '0.10'],
      [19.99, '19.99'],
      [1234567890.12, '1234567890.12'],
      [9999999999999.99, '9999999999999.99'],
      [100, '100.00'],
    ] as const) {
      const money = Money.parse(value);
      expect(money).to.be.instanceOf(Money);
      expect((money as Money).toString()).to.equal(text);
      expect((money as Money).toNumber()).to.equal(value);
    }
  });

  it('never sums floats: 0.1 + 0.2 is not an amount, 0.30 is', () => {
    expect(why(0.1 + 0.2)).to.equal('must have at most 2 decimal places');
    expect((Money.parse(0.3) as Money).cents).to.equal(30);
  });

  it('explains why a number is not an amount', () => {
    expect(why(-0.01)).to.equal('must not be negative');
    expect(why(1.005)).to.equal('must have at most 2 decimal places');
    expect(why(1e-7)).to.equal('must have at most 2 decimal places');
    expect(why(1e14)).to.equal('must be at most 9999999999999.99');
    expect(why(1e21)).to.equal('must be at most 9999999999999.99');
    expect(why(Number.NaN)).to.equal('must be a finite number');
    expect(why(Number.POSITIVE_INFINITY)).to.equal('must be a finite number');
  });

  it('round-trips the decimal text PostgreSQL exchanges', () => {
    expect(Money.fromDecimalString('12').toString()).to.equal('12.00');
    expect(Money.fromDecimalString('12.5').cents).to.equal(1250);
    expect(() => Money.fromDecimalString('12.345')).to.throw(RangeError);
    expect(() => Money.fromDecimalString('-1')).to.throw(RangeError);
    expect(() => Money.fromCents(Money.MAX_CENTS + 1)).to.throw(RangeError);
  });
});
