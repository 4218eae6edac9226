import { expect } from 'chai';
import {
  type HeldLine,
  OrderFulfilment,
  type Reservation,
  type ReservationStatus,
  type ReturnLine,
  type Shipment,
  type ShipmentLine,
  type ShipmentRequestLine,
  type StockReturn,
} from '../../src';

const ORDER = '0b9e6c1a-3f2d-4c5e-8a7b-1d2e3f4a5b6c';
const AT = new Date('2030-01-01T00:00:00Z');

/** An order's reservation in `status`: product 7 held 5 at location 2 then 3 at location 1, product 9 held 4 at 1. */
function reservation(status: ReservationStatus): Reservation {
  const lines: HeldLine[] = [
    {
      productId: 7,
      quantity: 8,
      allocations: [
        { locationId: 2, quantity: 5 },
        { locationId: 1, quantity: 3 },
      ],
      backorderedQuantity: 0,
    },
    { productId: 9, quantity: 4, allocations: [{ locationId: 1, quantity: 4 }], backorderedQuantity: 0 },
  ];
  return { id: 'r', reference: ORDER, origin: 'order', status, lines, expiresAt: AT, createdAt: AT, updatedAt: AT };
}

const shipment = (...lines: ShipmentLine[]): Shipment => ({
  id: `s${lines.length}`,
  orderId: ORDER,
  lines,
  carrier: null,
  trackingNumber: null,
  createdAt: AT,
});
const stockReturn = (...lines: ReturnLine[]): StockReturn => ({
  id: 'r',
  orderId: ORDER,
  lines,
  reason: null,
  createdAt: AT,
});
const at = (productId: number, locationId: number, quantity: number) => ({ productId, locationId, quantity });
const back = (productId: number, locationId: number, quantity: number, disposition: ReturnLine['disposition']) => ({
  ...at(productId, locationId, quantity),
  disposition,
});

describe('OrderFulfilment', () => {
  describe('what an order can still ship: its committed allocations less its shipment lines', () => {
    const cases: {
      title: string;
      status?: ReservationStatus;
      shipments?: Shipment[];
      shippable: ReturnType<typeof at>[];
    }[] = [
      {
        title: 'all of a committed hold, in product order, each at its locations in allocation order',
        shippable: [at(7, 2, 5), at(7, 1, 3), at(9, 1, 4)],
      },
      {
        title: 'less what shipped from each location, a location shipped in full gone',
        shipments: [shipment(at(7, 2, 2)), shipment(at(7, 2, 3), at(9, 1, 1))],
        shippable: [at(7, 1, 3), at(9, 1, 3)],
      },
      {
        title: 'nothing once every unit shipped',
        shipments: [shipment(at(7, 2, 5), at(7, 1, 3), at(9, 1, 4))],
        shippable: [],
      },
      { title: 'nothing of a hold not paid yet', status: 'held', shippable: [] },
      {
        title: 'nothing of a released hold (the order was cancelled), whatever had shipped',
        status: 'released',
        shipments: [shipment(at(7, 2, 1))],
        shippable: [],
      },
      { title: 'nothing of an expired hold', status: 'expired', shippable: [] },
      { title: 'nothing of a rejected order', status: 'rejected', shippable: [] },
    ];
    for (const { title, status = 'committed', shipments = [], shippable } of cases)
      it(title, () => {
        const fulfilment = OrderFulfilment.of(reservation(status), shipments, []);
        expect(fulfilment.shippable).to.deep.equal(shippable);
        expect(fulfilment.isShippable).to.equal(shippable.length > 0);
      });

    it('nothing of an order stock never held', () => {
      expect(OrderFulfilment.of(undefined, [], []).shippable).to.deep.equal([]);
    });
  });

  describe('planning a shipment', () => {
    const cases: {
      title: string;
      shipments?: Shipment[];
      lines: ShipmentRequestLine[];
      planned: ReturnType<typeof OrderFulfilment.prototype.planShipment>;
    }[] = [
      {
        title: 'a line at a location takes from there',
        lines: [{ productId: 7, quantity: 3, locationId: 1 }],
        planned: [at(7, 1, 3)],
      },
      {
        title: 'a line at no location takes from the allocations in their order, splitting where one has too few',
        lines: [{ productId: 7, quantity: 6 }],
        planned: [at(7, 1, 1), at(7, 2, 5)],
      },
      {
        title: 'past what shipped already',
        shipments: [shipment(at(7, 2, 4))],
        lines: [{ productId: 7, quantity: 2 }],
        planned: [at(7, 1, 1), at(7, 2, 1)],
      },
      {
        title: 'lines of one product and location are summed, in product then location order',
        lines: [
          { productId: 9, quantity: 1 },
          { productId: 7, quantity: 2, locationId: 1 },
          { productId: 9, quantity: 2, locationId: 1 },
          { productId: 7, quantity: 1, locationId: 2 },
        ],
        planned: [at(7, 1, 2), at(7, 2, 1), at(9, 1, 3)],
      },
      {
        title: 'a line at a location never takes what an earlier line of the request took there',
        lines: [
          { productId: 7, quantity: 4 },
          { productId: 7, quantity: 2, locationId: 2 },
        ],
        planned: { status: 'exceeds-committed', shippable: [at(7, 2, 5), at(7, 1, 3)] },
      },
      {
        title: 'more than is committed at the location named is refused, with what can ship of the product',
        lines: [{ productId: 7, quantity: 4, locationId: 1 }],
        planned: { status: 'exceeds-committed', shippable: [at(7, 2, 5), at(7, 1, 3)] },
      },
      {
        title: 'a location the order holds nothing of there is refused the same way',
        lines: [{ productId: 9, quantity: 1, locationId: 2 }],
        planned: { status: 'exceeds-committed', shippable: [at(9, 1, 4)] },
      },
      {
        title: 'more than is committed anywhere, past a partial shipment, names what is left of each product asked',
        shipments: [shipment(at(7, 2, 5))],
        lines: [
          { productId: 9, quantity: 1 },
          { productId: 7, quantity: 4 },
        ],
        planned: { status: 'exceeds-committed', shippable: [at(7, 1, 3), at(9, 1, 4)] },
      },
      {
        title: 'a product not in the order: nothing can ship of it',
        lines: [{ productId: 8, quantity: 1 }],
        planned: { status: 'exceeds-committed', shippable: [] },
      },
      {
        title: 'an order shipped in full is not shippable',
        shipments: [shipment(at(7, 2, 5), at(7, 1, 3), at(9, 1, 4))],
        lines: [{ productId: 7, quantity: 1 }],
        planned: { status: 'order-not-shippable' },
      },
    ];
    for (const { title, shipments = [], lines, planned } of cases)
      it(title, () => {
        expect(OrderFulfilment.of(reservation('committed'), shipments, []).planShipment(lines)).to.deep.equal(planned);
      });

    for (const status of ['held', 'released', 'expired', 'rejected'] as const)
      it(`refuses a ${status} order as not shippable`, () => {
        expect(
          OrderFulfilment.of(reservation(status), [], []).planShipment([{ productId: 7, quantity: 1 }]),
        ).to.deep.equal({ status: 'order-not-shippable' });
      });
  });

  describe('what can come back: shipped less returned, per product, wherever', () => {
    const shipped = [shipment(at(7, 2, 5), at(9, 1, 2)), shipment(at(7, 1, 3))];
    const cases: { title: string; returns: StockReturn[]; lines: ReturnLine[]; refused?: [number, number][] }[] = [
      { title: 'all that shipped', returns: [], lines: [back(7, 1, 8, 'restock'), back(9, 3, 2, 'damaged')] },
      {
        title: 'to any location, with any dispositions, up to what is left',
        returns: [stockReturn(back(7, 2, 2, 'missing'))],
        lines: [back(7, 1, 3, 'quality-control'), back(7, 5, 3, 'restock')],
      },
      {
        title: 'not more than shipped',
        returns: [],
        lines: [back(7, 1, 9, 'restock')],
        refused: [[7, 8]],
      },
      {
        title: 'not more than shipped less what came back, missing units counted as back',
        returns: [stockReturn(back(7, 2, 6, 'missing'), back(9, 1, 2, 'restock'))],
        lines: [back(7, 1, 1, 'restock'), back(7, 2, 2, 'damaged'), back(9, 1, 1, 'restock')],
        refused: [
          [7, 2],
          [9, 0],
        ],
      },
      {
        title: 'nothing of a product that never shipped',
        returns: [],
        lines: [back(8, 1, 1, 'restock')],
        refused: [[8, 0]],
      },
    ];
    for (const { title, returns, lines, refused } of cases)
      it(title, () => {
        const fulfilment = OrderFulfilment.of(reservation('committed'), shipped, returns);
        expect(fulfilment.checkReturn(lines)).to.deep.equal(
          refused && {
            status: 'exceeds-shipped',
            returnable: refused.map(([productId, quantity]) => ({ productId, quantity })),
          },
        );
      });

    it('whatever became of the order’s hold since (a return follows a shipment whatever the order did then)', () => {
      const fulfilment = OrderFulfilment.of(reservation('released'), shipped, []);
      expect([fulfilment.returnable(7), fulfilment.returnable(9), fulfilment.returnable(8)]).to.deep.equal([8, 2, 0]);
    });
  });
});
