import { ValidationError } from '@platform/kernel';
import { expect } from 'chai';
import { type TransferRequestInput, TransferRequest, type TransferStatus, transferTransition } from '../../src';

describe('TransferRequest.create', () => {
  const valid: TransferRequestInput = {
    productId: 7,
    fromLocationId: 1,
    toLocationId: 2,
    quantity: 3,
    reference: '  restock-north  ',
  };

  it('makes a request between two locations, its reference trimmed', () => {
    expect(TransferRequest.create(valid)).to.include({
      productId: 7,
      fromLocationId: 1,
      toLocationId: 2,
      quantity: 3,
      reference: 'restock-north',
    });
  });

  const refused: { title: string; input: Partial<TransferRequestInput>; errors: Record<string, string[]> }[] = [
    {
      title: 'refuses a transfer to the location it leaves',
      input: { fromLocationId: 2, toLocationId: 2 },
      errors: { toLocationId: ['must differ from fromLocationId'] },
    },
    {
      title: 'refuses a location that is not a location id',
      input: { fromLocationId: 0 },
      errors: { fromLocationId: ['must be an integer from 1 to 2147483647'] },
    },
    {
      title: 'refuses a transfer of nothing',
      input: { quantity: 0 },
      errors: { quantity: ['must be an integer from 1 to 2147483647'] },
    },
    {
      title: 'refuses a blank reference',
      input: { reference: '   ' },
      errors: { reference: ['is required and must not be blank'] },
    },
  ];

  for (const { title, input, errors } of refused) {
    it(title, () => {
      expect(() => TransferRequest.create({ ...valid, ...input }))
        .to.throw(ValidationError)
        .with.property('errors')
        .that.deep.equals(errors);
    });
  }
});

describe('transferTransition', () => {
  const cases: { status: TransferStatus; to: 'received' | 'cancelled'; expected: string }[] = [
    { status: 'in-transit', to: 'received', expected: 'apply' },
    { status: 'in-transit', to: 'cancelled', expected: 'apply' },
    { status: 'received', to: 'received', expected: 'unchanged' },
    { status: 'cancelled', to: 'cancelled', expected: 'unchanged' },
    { status: 'received', to: 'cancelled', expected: 'refuse' },
    { status: 'cancelled', to: 'received', expected: 'refuse' },
  ];

  for (const { status, to, expected } of cases) {
    it(`answers ${expected} to a transfer ${status} asked to be ${to}`, () =>
      expect(transferTransition(status, to)).to.equal(expected));
  }
});
