import {
  type AllocationStrategy,
  applied,
  change,
  DEFAULT_LOCATION_ID,
  fillChange,
  holdChanges,
  type LevelChange,
  type LineHold,
  type LineRequest,
  type Location,
  planAdjustment,
  planFills,
  planHold,
  planSettlement,
  planStockReplacement,
  planTransferEnd,
  planTransferOut,
  type ProductStock,
  type Settlement,
  STOCK_MAX,
  type StockTransfer,
} from '@stock/domain';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { aContext } from './builders';
import { applyChanges, aStoredLocation, aStoredProduct, inTransaction, levelsOf, movementsOf } from './stock-fixtures';
import type { OpenStockStore, StockStoreUnderTest } from './stock-store';

chai.use(chaiAsPromised);
const { expect } = chai;

/** onHand, reserved and incoming of a level. */
type Level = readonly [onHand: number, reserved: number, incoming?: number];

/** Where a plan is made: the product's stock as locked, the locations, and the id of the second one. */
interface Scene {
  readonly stock: ProductStock;
  readonly locations: readonly Location[];
  readonly second: number;
}

/** What a plan answered: the changes it would make, or why it refuses (a refusal has a status). */
type Planned = readonly LevelChange[] | { readonly status: string };

/**
 * One edge of a rule: the levels at the default location and at a second one,
 * what the domain's plan answers there, and the change one unit past what it
 * allows (or the change it refused), which the store's guard must throw on.
 */
interface Edge {
  readonly name: string;
  readonly atDefault: Level;
  readonly atSecond?: Level;
  plan(scene: Scene): Planned;
  /** Undefined where the plan makes its changes; else the refusal it must answer. */
  readonly refused?: object;
  /** Forced through `apply` from the same levels: must throw and leave nothing. */
  beyond?(second: number): LevelChange[];
}

function isChanges(planned: Planned): planned is readonly LevelChange[] {
  return Array.isArray(planned);
}

const ALLOWED = undefined;
const MAX = STOCK_MAX;
const short = (available: number) => ({ status: 'short', available });
const belowMinimum = (available: number) => ({ status: 'below-minimum', available });
const aboveMaximum = (available: number) => ({ status: 'above-maximum', available });
const D = DEFAULT_LOCATION_ID;

function adjusts(
  name: string,
  atDefault: Level,
  atSecond: Level | undefined,
  at: 'default' | 'second',
  delta: number,
  refused?: object,
): Edge {
  const location = (second: number) => (at === 'default' ? D : second);
  return {
    name: `adjust by ${delta} at the ${at} location: ${name}`,
    atDefault,
    atSecond,
    plan: ({ stock, second }) => {
      const planned = planAdjustment(stock, location(second), delta);
      return 'status' in planned ? planned : [planned];
    },
    refused,
    beyond: (second) => [change('adjusted', location(second), { onHand: refused ? delta : delta + Math.sign(delta) })],
  };
}

function holds(
  name: string,
  atDefault: Level,
  atSecond: Level | undefined,
  line: (second: number) => LineRequest,
  refused?: object,
  beyond?: (second: number) => LevelChange[],
  strategy: AllocationStrategy = 'priority',
): Edge {
  return {
    name: `hold: ${name}`,
    atDefault,
    atSecond,
    plan: ({ stock, locations, second }) => {
      const planned = planHold(stock, locations, line(second), strategy);
      return 'status' in planned ? planned : holdChanges(planned);
    },
    refused,
    ...(beyond && { beyond }),
  };
}

function settles(name: string, atDefault: Level, settlement: Settlement, hold: LineHold, refused?: object): Edge {
  const quantity = hold.allocations.reduce((sum, a) => sum + a.quantity, 0);
  return {
    name: `${settlement}: ${name}`,
    atDefault,
    plan: () => {
      const planned = planSettlement(hold, settlement);
      return 'status' in planned ? planned : planned.changes;
    },
    refused,
    ...(refused === undefined && {
      beyond: () => [
        change(settlement, D, { onHand: settlement === 'committed' ? -quantity - 1 : 0, reserved: -quantity - 1 }),
      ],
    }),
  };
}

const aTransfer = (second: number, quantity: number): StockTransfer => ({
  id: 'b3c1d9a4-0d1e-4a43-9a52-1f6f4f5d0001',
  productId: 1,
  fromLocationId: D,
  toLocationId: second,
  quantity,
  reference: 'edge',
  status: 'in-transit',
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

function sends(name: string, atDefault: Level, quantity: number, refused?: object): Edge {
  const out = (second: number, units: number) => {
    const planned = aTransfer(second, units);
    return [
      change('transfer-sent', D, { onHand: -units }, planned.id),
      change('transfer-sent', second, { incoming: units }, planned.id),
    ];
  };
  return {
    name: `send ${quantity} to the second location: ${name}`,
    atDefault,
    plan: ({ stock, second }) => planTransferOut(stock, aTransfer(second, quantity)),
    refused,
    beyond: (second) => out(second, refused ? quantity : quantity + 1),
  };
}

function ends(to: 'received' | 'cancelled', atDefault: Level, incoming: number): Edge {
  return {
    name: `${to === 'received' ? 'receive' : 'cancel'} a transfer of all ${incoming} incoming at the second location`,
    atDefault,
    atSecond: [0, 0, incoming],
    plan: ({ second }) => planTransferEnd(aTransfer(second, incoming), to),
    beyond: (second) => planTransferEnd(aTransfer(second, incoming + 1), to),
  };
}

function fills(name: string, atDefault: Level, waiting: readonly number[]): Edge {
  const backorders = waiting.map((quantity, i) => ({ reservationId: `r-${i}`, quantity }));
  return {
    name: `fill backorders of ${waiting.join(', ')}: ${name}`,
    atDefault,
    plan: ({ stock }) =>
      planFills(
        stock.levels.find((l) => l.locationId === D)!,
        backorders,
      ).map(fillChange),
    beyond: () => [change('backorder-filled', D, { reserved: atDefault[0] - atDefault[1] + 1 })],
  };
}

function replaces(
  name: string,
  atDefault: Level,
  atSecond: Level | undefined,
  quantityInStock: number,
  refused?: object,
): Edge {
  return {
    name: `replace the stock with ${quantityInStock}: ${name}`,
    atDefault,
    atSecond,
    plan: ({ stock }) => {
      const planned = planStockReplacement(stock, quantityInStock);
      if (planned === undefined) return [];
      return 'status' in planned ? planned : [planned];
    },
    refused,
    // A PUT at several locations is refused by the rule alone: the guard sees a change like any other.
    ...((refused === undefined || 'quantityInStock' in refused) && {
      beyond: () => [
        change('updated', D, { onHand: (refused ? quantityInStock : quantityInStock - 1) - atDefault[0] }),
      ],
    }),
  };
}

/** The boundary cases of every plan: exactly at each bound, and one past it. */
const EDGES: readonly Edge[] = [
  adjusts('down to exactly what is held there', [10, 3], [4, 0], 'default', -7),
  adjusts('one below what is held there', [10, 3], [4, 0], 'default', -8, belowMinimum(7)),
  adjusts('down to exactly 0 where nothing is held', [10, 3], [4, 0], 'second', -4),
  adjusts('one below 0 where the product has stock elsewhere', [10, 3], [4, 0], 'second', -5, belowMinimum(4)),
  adjusts('the product’s total up to exactly the int32 maximum', [10, 3], [4, 0], 'second', MAX - 14),
  adjusts('the product’s total one above it', [10, 3], [4, 0], 'second', MAX - 13, aboveMaximum(14)),
  adjusts('by the int32 minimum from its maximum', [MAX, 0], undefined, 'default', -MAX - 1, belowMinimum(MAX)),
  adjusts('down by one when all of the largest stock is held', [MAX, MAX], undefined, 'default', -1, belowMinimum(0)),
  holds(
    'exactly what the named location has available',
    [10, 3],
    [4, 0],
    () => ({ quantity: 7, locationId: D }),
    ALLOWED,
    () => [change('reserved', D, { reserved: 8 })],
  ),
  holds(
    'one more than the named location has',
    [10, 3],
    [4, 0],
    () => ({ quantity: 8, locationId: D }),
    short(7),
    () => [change('reserved', D, { reserved: 8 })],
  ),
  holds(
    'at a location with nothing there',
    [10, 3],
    [0, 0],
    (second) => ({ quantity: 1, locationId: second }),
    short(0),
    (second) => [change('reserved', second, { reserved: 1 })],
  ),
  holds(
    'exactly what two locations have, split',
    [10, 3],
    [4, 0],
    () => ({ quantity: 11 }),
    ALLOWED,
    (second) => [change('reserved', D, { reserved: 7 }), change('reserved', second, { reserved: 5 })],
  ),
  holds(
    'exactly what two locations have, most available first',
    [10, 3],
    [9, 0],
    () => ({ quantity: 16 }),
    ALLOWED,
    undefined,
    'most-available',
  ),
  holds('one more than two locations have', [10, 3], [4, 0], () => ({ quantity: 12 }), short(11)),
  holds(
    'all of the largest stock',
    [MAX, 0],
    undefined,
    () => ({ quantity: MAX }),
    ALLOWED,
    () => [change('reserved', D, { reserved: MAX }), change('reserved', D, { reserved: 1 })],
  ),
  settles('exactly what is held', [10, 3], 'committed', {
    allocations: [{ locationId: D, quantity: 3 }],
    backordered: 0,
  }),
  settles('exactly what is held', [10, 3], 'released', {
    allocations: [{ locationId: D, quantity: 3 }],
    backordered: 0,
  }),
  settles('all of the largest stock', [MAX, MAX], 'committed', {
    allocations: [{ locationId: D, quantity: MAX }],
    backordered: 0,
  }),
  settles(
    'with units backordered',
    [10, 3],
    'committed',
    { allocations: [{ locationId: D, quantity: 3 }], backordered: 1 },
    {
      status: 'backorder-not-filled',
      backordered: 1,
    },
  ),
  sends('exactly what is available there', [10, 3], 7),
  sends('one more than is available there', [10, 3], 8, short(7)),
  ends('received', [10, 3], 5),
  ends('cancelled', [10, 3], 5),
  fills('as far as what is available goes, oldest first', [10, 3], [5, 9]),
  replaces('down to exactly what is held', [10, 3], undefined, 3),
  replaces('one below what is held', [10, 3], undefined, 2, {
    status: 'below-reserved',
    quantityInStock: 10,
    reservedQuantity: 3,
  }),
  replaces('with stock at a second location', [10, 3], [1, 0], 10, { status: 'several-locations' }),
];

/**
 * The stock plans of @stock/domain and the store's guard on
 * StockLevelRepository.apply agree at every edge: what a plan makes from the
 * locked levels, apply applies (to the levels the domain computes); one unit
 * past it, or what the plan refused, forced through apply throws and leaves
 * nothing. Any adapter runs it: it drives only the ports.
 */
export function stockRulesContract(open: OpenStockStore): void {
  let store: StockStoreUnderTest;

  /** A product with `atDefault` at the default location and `atSecond` at a new one. */
  async function aProductAt(atDefault: Level, atSecond: Level | undefined): Promise<{ id: number; second: number }> {
    const second = (await aStoredLocation(store)).id;
    const { id } = await aStoredProduct(store, { quantityInStock: atDefault[0] });
    const [, reserved, incoming = 0] = atDefault;
    const changes = [change('reserved', D, { reserved, incoming })];
    if (atSecond) {
      const [onHand, held, arriving = 0] = atSecond;
      changes.push(
        change('adjusted', second, { onHand }),
        change('reserved', second, { reserved: held, incoming: arriving }),
      );
    }
    const moving = changes.filter((c) => c.onHand !== 0 || c.reserved !== 0 || c.incoming !== 0);
    if (moving.length > 0) await applyChanges(store, id, moving);
    return { id, second };
  }

  async function snapshot(id: number) {
    return {
      product: await store.products.findById(id),
      levels: await levelsOf(store, id),
      movements: await movementsOf(store, id),
    };
  }

  before(async function () {
    store = await open(this, Date.now);
  });
  beforeEach(async () => store.reset());
  after(async () => store?.close());

  for (const edge of EDGES) {
    it(edge.name, async () => {
      const { id, second } = await aProductAt(edge.atDefault, edge.atSecond);
      const before = await snapshot(id);
      if (edge.beyond) {
        await expect(applyChanges(store, id, edge.beyond(second)), 'the guard, one past the plan').to.be.rejected;
        expect(await snapshot(id), 'the product after the guard threw').to.deep.equal(before);
      }
      const locations = await store.locations.list();
      await inTransaction(store, async (tx) => {
        const stock = (await tx.levels.lock(id))!;
        const planned = edge.plan({ stock, locations, second });
        if (edge.refused !== undefined) {
          expect(planned, 'the domain plan').to.deep.equal(edge.refused);
          return;
        }
        if (!isChanges(planned)) return expect.fail(`the domain plan refused: ${JSON.stringify(planned)}`);
        const after = await tx.levels.apply(id, planned, {}, aContext());
        expect((await tx.levels.lock(id))!.levels, 'the levels the store applied').to.deep.equal(
          applied(stock, planned),
        );
        expect(after.version).to.equal(stock.product.version + 1);
      });
    });
  }
}
