import { expect } from 'chai';
import { adjustmentRefusal, holdRefusal, removalRefusal, settlementRefusal, STOCK_MAX, updateRefusal } from '../src';

const level = (quantityInStock: number, reservedQuantity: number, version = 1) => ({
  quantityInStock,
  reservedQuantity,
  version,
});

describe('the stock rules', () => {
  it('hold what is available (in stock − reserved), never one more', () => {
    expect(holdRefusal(level(10, 3), 7)).to.equal(undefined);
    expect(holdRefusal(level(10, 3), 8)).to.deep.equal({ status: 'short', available: 7 });
    expect(holdRefusal(level(0, 0), 1)).to.deep.equal({ status: 'short', available: 0 });
  });

  it('adjust the stock down to what is held and up to STOCK_MAX, naming the bound crossed', () => {
    expect(adjustmentRefusal(level(10, 3), -7)).to.equal(undefined);
    expect(adjustmentRefusal(level(10, 3), -8)).to.deep.equal({ status: 'below-minimum', available: 7 });
    expect(adjustmentRefusal(level(10, 0), -10)).to.equal(undefined);
    expect(adjustmentRefusal(level(10, 0), -11)).to.deep.equal({ status: 'below-minimum', available: 10 });
    expect(adjustmentRefusal(level(STOCK_MAX - 1, 0), 1)).to.equal(undefined);
    expect(adjustmentRefusal(level(STOCK_MAX, 0), 1)).to.deep.equal({ status: 'above-maximum', available: STOCK_MAX });
  });

  it('update at the expected version, to a stock no lower than what is held; a stale version speaks first', () => {
    expect(updateRefusal(level(10, 3, 2), 3, 2)).to.equal(undefined);
    expect(updateRefusal(level(10, 3, 2), 3, undefined)).to.equal(undefined);
    const belowHeld = { status: 'below-reserved', quantityInStock: 10, reservedQuantity: 3 };
    expect(updateRefusal(level(10, 3, 2), 2, undefined)).to.deep.equal(belowHeld);
    expect(updateRefusal(level(10, 3, 2), 2, 1)).to.deep.equal({ status: 'version-mismatch', currentVersion: 2 });
  });

  it('remove only what nothing is held of, and settle no more than is held', () => {
    expect(removalRefusal(level(10, 0))).to.equal(undefined);
    expect(removalRefusal(level(10, 1))).to.deep.equal({ status: 'reserved', reservedQuantity: 1 });
    expect(settlementRefusal(level(10, 3), 3)).to.equal(undefined);
    expect(settlementRefusal(level(10, 3), 4)).to.deep.equal({ status: 'more-than-held', reservedQuantity: 3 });
  });
});
