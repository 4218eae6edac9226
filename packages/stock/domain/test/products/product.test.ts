import { ValidationError } from '@platform/kernel';
import { expect } from 'chai';
import { longerThan, Money, ProductDetails, StockAdjustment } from '../../src';

const refusal = (make: () => unknown) => {
  try {
    make();
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
  throw new Error('not refused');
};

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

describe('ProductDetails.create', () => {
  const valid = { name: 'Chair', description: '', price: Money.fromCents(100), quantityInStock: 1 };

  it('trims the name and keeps everything else as given', () => {
    expect(ProductDetails.create({ ...valid, name: '  Chair  ' })).to.include({
      name: 'Chair',
      description: '',
      quantityInStock: 1,
    });
  });

  it('refuses broken details, naming every broken field at once: no adapter can ever receive them', () => {
    expect(
      refusal(() => ProductDetails.create({ ...valid, name: ' ', description: 'x'.repeat(2001), quantityInStock: -1 })),
    ).to.deep.equal({
      name: ['is required and must not be blank'],
      description: ['must be at most 2000 characters'],
      quantityInStock: ['must not be negative'],
    });
    expect(refusal(() => ProductDetails.create({ ...valid, name: 'A\u0000B', quantityInStock: 1.5 }))).to.deep.equal({
      name: ['must not contain the NUL character (U+0000)'],
      quantityInStock: ['must be an integer'],
    });
    expect(refusal(() => ProductDetails.create({ ...valid, quantityInStock: 2147483648 }))).to.have.all.keys(
      'quantityInStock',
    );
  });

  it('refuses text that is not well-formed Unicode, which each store would keep differently', () => {
    const notUnicode = ['must be well-formed Unicode (it has a lone surrogate)'];
    expect(refusal(() => ProductDetails.create({ ...valid, name: 'a\ud800b', description: '\udfff' }))).to.deep.equal({
      name: notUnicode,
      description: notUnicode,
    });
    expect(refusal(() => ProductDetails.create({ ...valid, name: 'ok \ud83d' }))).to.deep.equal({ name: notUnicode });
    expect(ProductDetails.create({ ...valid, name: 'Rocket \ud83d\ude80', description: 'Zoë 日本' })).to.include({
      name: 'Rocket 🚀',
      description: 'Zoë 日本',
    });
  });
});

describe('StockAdjustment.create', () => {
  it('refuses a delta that is 0, fractional or past int32, and a reason over 200 characters', () => {
    for (const delta of [0, 1.5, 2147483648, -2147483649, Number.NaN]) {
      expect(
        refusal(() => StockAdjustment.create({ delta })),
        String(delta),
      ).to.have.all.keys('delta');
    }
    expect(refusal(() => StockAdjustment.create({ delta: 1, reason: 'x'.repeat(201) }))).to.have.all.keys('reason');
    expect(refusal(() => StockAdjustment.create({ delta: 1, reason: 'order \udc00' }))).to.have.all.keys('reason');
    expect(StockAdjustment.create({ delta: -2147483648, reason: 'write-off' })).to.include({
      delta: -2147483648,
      reason: 'write-off',
    });
  });
});
