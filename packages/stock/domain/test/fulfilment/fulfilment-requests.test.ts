import { ValidationError } from '@platform/kernel';
import { expect } from 'chai';
import { ReturnRequest, type ReturnRequestInput, ShipmentRequest, type ShipmentRequestInput } from '../../src';

const ORDER = '0B9E6C1A-3F2D-4C5E-8A7B-1D2E3F4A5B6C';

function expectRefused(make: () => unknown, errors: Record<string, string[]>): void {
  expect(make).to.throw(ValidationError).with.property('errors').that.deep.equals(errors);
}

describe('ShipmentRequest.create', () => {
  const valid: ShipmentRequestInput = {
    orderId: ORDER,
    lines: [
      { productId: 7, quantity: 2 },
      { productId: 3, quantity: 1, locationId: 2 },
    ],
    carrier: '  DHL ',
  };

  it('keeps the lines as asked (the order says where a line without a location takes from), notes trimmed', () => {
    const request = ShipmentRequest.create(valid);
    expect(request).to.deep.include({
      orderId: ORDER.toLowerCase(),
      lines: valid.lines,
      carrier: 'DHL',
      trackingNumber: null,
    });
    expect(request.locationIds).to.deep.equal([2]);
  });

  const refused: { title: string; input: Partial<ShipmentRequestInput>; errors: Record<string, string[]> }[] = [
    {
      title: 'an order id that is not a UUID',
      input: { orderId: '42' },
      errors: { orderId: ['must be an order id (a UUID)'] },
    },
    { title: 'no lines', input: { lines: [] }, errors: { lines: ['must hold 1 to 1000 lines'] } },
    {
      title: 'bad fields of lines, each named by its index',
      input: {
        lines: [
          { productId: 0, quantity: 1 },
          { productId: 1, quantity: 10_001, locationId: -1 },
        ],
      },
      errors: {
        'lines[0].productId': ['must be an integer from 1 to 2147483647'],
        'lines[1].quantity': ['must be an integer from 1 to 10000'],
        'lines[1].locationId': ['must be an integer from 1 to 2147483647'],
      },
    },
    {
      title: 'more units of a product than one event line carries',
      input: {
        lines: [
          { productId: 5, quantity: 6000 },
          { productId: 5, quantity: 5000, locationId: 2 },
        ],
      },
      errors: { lines: ['take more than 10000 units of product 5 at once; make two requests'] },
    },
    {
      title: 'a blank carrier, a tracking number too long',
      input: { carrier: ' ', trackingNumber: 'x'.repeat(101) },
      errors: {
        carrier: ['must not be blank (leave it out instead)'],
        trackingNumber: ['must be at most 100 characters'],
      },
    },
  ];
  for (const { title, input, errors } of refused)
    it(`refuses ${title}`, () => expectRefused(() => ShipmentRequest.create({ ...valid, ...input }), errors));
});

describe('ReturnRequest.create', () => {
  const valid: ReturnRequestInput = {
    orderId: ORDER,
    lines: [
      { productId: 7, quantity: 2, locationId: 2, disposition: 'damaged' },
      { productId: 3, quantity: 1, locationId: 1, disposition: 'restock' },
      { productId: 7, quantity: 1, locationId: 2, disposition: 'restock' },
      { productId: 7, quantity: 3, locationId: 2, disposition: 'damaged' },
    ],
  };

  it('sums the lines per product, location and disposition, in that order, without a reason', () => {
    expect(ReturnRequest.create(valid)).to.deep.include({
      orderId: ORDER.toLowerCase(),
      lines: [
        { productId: 3, quantity: 1, locationId: 1, disposition: 'restock' },
        { productId: 7, quantity: 1, locationId: 2, disposition: 'restock' },
        { productId: 7, quantity: 5, locationId: 2, disposition: 'damaged' },
      ],
      reason: null,
    });
  });

  const refused: { title: string; input: Partial<ReturnRequestInput>; errors: Record<string, string[]> }[] = [
    {
      title: 'an unknown disposition and a location that is no id',
      input: { lines: [{ productId: 1, quantity: 1, locationId: 0, disposition: 'lost' as 'missing' }] },
      errors: {
        'lines[0].locationId': ['must be an integer from 1 to 2147483647'],
        'lines[0].disposition': ['must be one of restock, quality-control, damaged, missing'],
      },
    },
    {
      title: 'a reason too long',
      input: { reason: 'x'.repeat(501) },
      errors: { reason: ['must be at most 500 characters'] },
    },
    {
      title: 'too many lines',
      input: { lines: Array(1001).fill(valid.lines[0]) },
      errors: { lines: ['must hold 1 to 1000 lines'] },
    },
  ];
  for (const { title, input, errors } of refused)
    it(`refuses ${title}`, () => expectRefused(() => ReturnRequest.create({ ...valid, ...input }), errors));
});
