import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { allowedActions, refundable } from '../src/orders/order-actions';
import { DISPOSITIONS, type Order, ORDER_STATUSES } from '../src/orders/order-types';

const DOCS = join(import.meta.dirname, '..', '..', '..', 'docs');
type Spec = { components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> } };
const spec = (file: string) => parse(readFileSync(join(DOCS, file), 'utf8')) as Spec;

const paid: Order = {
  id: '0193a1f2-7c4e-7b21-9c3d-5e8f6a7b8c9d',
  buyer: 'shop-frontend',
  status: 'paid',
  lines: [
    {
      productId: 1,
      name: 'Desk lamp',
      unitPrice: 39.9,
      quantity: 2,
      lineTotal: 79.8,
      allocations: [{ locationId: 1, quantity: 2 }],
      shippedQuantity: 0,
      returnedQuantity: 0,
    },
  ],
  total: 79.8,
  payment: {
    provider: 'stripe',
    intentId: 'pi_1',
    status: 'authorized',
    amount: 79.8,
    currency: 'EUR',
    capturedAmount: 0,
    refundedAmount: 0,
  },
  refunds: [],
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
};
const shipped: Order = {
  ...paid,
  status: 'shipped',
  lines: [{ ...paid.lines[0]!, shippedQuantity: 2 }],
  payment: { ...paid.payment!, status: 'captured', capturedAmount: 79.8 },
};
const EVERY_SCOPE = new Set(['stock:read', 'stock:fulfil', 'orders:read', 'orders:admin', 'orders:refund']);
const CLERK = new Set(['stock:read', 'stock:write', 'stock:fulfil', 'orders:read']);
const MANAGER = new Set(['orders:read', 'orders:admin', 'orders:refund', 'stock:read']);

describe('the back office’s order actions', () => {
  it('offers Ship for a paid order with units left to ship, to those who may fulfil', () => {
    expect(allowedActions(paid, EVERY_SCOPE)).to.deep.equal({ ship: true, return: false, refund: false });
    expect(allowedActions(paid, MANAGER).ship).to.equal(false);
    expect(allowedActions({ ...paid, status: 'reserved' }, EVERY_SCOPE).ship).to.equal(false);
    expect(allowedActions(shipped, EVERY_SCOPE).ship).to.equal(false);
  });

  it('offers Record return while shipped units have not all come back, and Refund while captured money is left', () => {
    expect(allowedActions(shipped, EVERY_SCOPE)).to.deep.equal({ ship: false, return: true, refund: true });
    expect(allowedActions(shipped, CLERK)).to.deep.equal({ ship: false, return: true, refund: false });
    expect(allowedActions(shipped, MANAGER)).to.deep.equal({ ship: false, return: false, refund: true });
  });

  it('counts refunds pending and made against the captured amount, exactly, and frees a failed one’s', () => {
    const refund = (amount: number, status: 'pending' | 'succeeded' | 'failed') => ({
      id: `r-${amount}-${status}`,
      amount,
      reason: 'r',
      status,
      createdAt: paid.createdAt,
    });
    expect(refundable(shipped)).to.equal(79.8);
    const some = { ...shipped, refunds: [refund(0.1, 'succeeded'), refund(0.2, 'pending'), refund(50, 'failed')] };
    expect(refundable(some)).to.equal(79.5);
    const all = { ...shipped, refunds: [refund(79.8, 'succeeded')] };
    expect(refundable(all)).to.equal(0);
    expect(allowedActions(all, EVERY_SCOPE).refund).to.equal(false);
  });

  it('knows the statuses sales answers and the dispositions stock takes', () => {
    expect([...ORDER_STATUSES]).to.deep.equal(
      spec('sales.openapi.yaml').components.schemas.Order!.properties.status!.enum,
    );
    expect([...DISPOSITIONS]).to.deep.equal(
      spec('openapi.yaml').components.schemas.ReturnLine!.properties.disposition!.enum,
    );
  });
});
