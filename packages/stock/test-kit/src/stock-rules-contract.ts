import { INT32_MAX } from '@platform/kernel';
import {
  adjustmentRefusal,
  holdRefusal,
  type Product,
  type ProductRepository,
  removalRefusal,
  settlementRefusal,
  updateRefusal,
} from '@stock/domain';
import { expect } from 'chai';
import { aContext, aProduct } from './builders';
import type { OpenStockStore, StockStoreUnderTest } from './stock-store';

/** What a write did: made the change, or refused it (with the reason it gave, when its port gives one). */
type Answer = { readonly made: true } | { readonly made: false; readonly refusal?: object };

/** What a rule answers: why it refuses, or undefined where it allows. */
type Refused = object | undefined;

/** One edge: a product's stock and what is held of it, what the rule says there, and the write the adapter guards. */
interface Edge {
  readonly name: string;
  readonly stock: number;
  readonly reserved: number;
  /** The domain rule applied to the product as it stands before the write. */
  rule(before: Product): Refused;
  /** What the rule must answer at this edge: undefined where it allows the write. */
  readonly refused: Refused;
  write(products: ProductRepository, before: Product): Promise<Answer>;
}

/** An outcome of the ports' shape: made when its status is `made`, else the refusal it is. */
function answer(made: string): (outcome: { readonly status: string }) => Answer {
  return (outcome) => (outcome.status === made ? { made: true } : { made: false, refusal: outcome });
}

const held = answer('held');
const adjusted = answer('adjusted');
const updated = answer('updated');
const removed = answer('removed');
/** A settlement answers the product, or nothing when refused: its port gives no reason. */
const settled = (product: Product | undefined): Answer => (product ? { made: true } : { made: false });

function holds(name: string, stock: number, reserved: number, quantity: number, refused: Refused): Edge {
  return {
    name: `hold ${quantity} of ${stock} with ${reserved} held: ${name}`,
    stock,
    reserved,
    rule: (before) => holdRefusal(before, quantity),
    refused,
    write: async (products, before) => held(await products.hold(before.id, quantity, aContext())),
  };
}

function adjusts(name: string, stock: number, reserved: number, delta: number, refused: Refused): Edge {
  return {
    name: `adjust ${stock} with ${reserved} held by ${delta}: ${name}`,
    stock,
    reserved,
    rule: (before) => adjustmentRefusal(before, delta),
    refused,
    write: async (products, before) => adjusted(await products.adjustStock(before.id, delta, aContext())),
  };
}

/** `staleBy` versions behind the product's own when given; no expected version when undefined. */
function updates(
  name: string,
  stock: number,
  reserved: number,
  quantityInStock: number,
  staleBy: number | undefined,
  refused: Refused,
): Edge {
  const expected = (before: Product) => (staleBy === undefined ? undefined : before.version - staleBy);
  const details = aProduct({ quantityInStock });
  return {
    name: `update ${stock} with ${reserved} held to ${quantityInStock}: ${name}`,
    stock,
    reserved,
    rule: (before) => updateRefusal(before, quantityInStock, expected(before)),
    refused,
    write: async (products, before) => updated(await products.update(before.id, details, expected(before), aContext())),
  };
}

function removes(name: string, stock: number, reserved: number, refused: Refused): Edge {
  return {
    name: `remove ${stock} with ${reserved} held: ${name}`,
    stock,
    reserved,
    rule: removalRefusal,
    refused,
    write: async (products, before) => removed(await products.remove(before.id)),
  };
}

type Settling = 'committed' | 'released';

function settles(settlement: Settling, stock: number, reserved: number, quantity: number, refused: Refused): Edge {
  return {
    name: `${settlement === 'committed' ? 'commit' : 'release'} ${quantity} of ${reserved} held (stock ${stock})`,
    stock,
    reserved,
    rule: (before) => settlementRefusal(before, quantity),
    refused,
    write: async (products, before) => settled(await products.settle(before.id, quantity, settlement, aContext())),
  };
}

const MAX = INT32_MAX;
/** Where the rule allows the write. */
const ALLOWED = undefined;
const short = (available: number) => ({ status: 'short', available });
const belowMinimum = (available: number) => ({ status: 'below-minimum', available });
const aboveMaximum = (available: number) => ({ status: 'above-maximum', available });
const belowReserved = (quantityInStock: number, reservedQuantity: number) => ({
  status: 'below-reserved',
  quantityInStock,
  reservedQuantity,
});
const versionMismatch = (currentVersion: number) => ({ status: 'version-mismatch', currentVersion });
const moreThanHeld = (reservedQuantity: number) => ({ status: 'more-than-held', reservedQuantity });

/** The boundary cases of every stock rule: exactly at each bound, and one past it. */
const EDGES: readonly Edge[] = [
  holds('exactly what is available', 10, 3, 7, ALLOWED),
  holds('one more than is available', 10, 3, 8, short(7)),
  holds('nothing available, all of it held', 5, 5, 1, short(0)),
  holds('nothing in stock', 0, 0, 1, short(0)),
  holds('all of the largest stock', MAX, 0, MAX, ALLOWED),
  holds('the largest stock, one more than is available', MAX, 1, MAX, short(MAX - 1)),
  adjusts('down to exactly 0', 10, 0, -10, ALLOWED),
  adjusts('one below 0', 10, 0, -11, belowMinimum(10)),
  adjusts('down to exactly what is held', 10, 3, -7, ALLOWED),
  adjusts('one below what is held', 10, 3, -8, belowMinimum(7)),
  adjusts('up to exactly the int32 maximum', 0, 0, MAX, ALLOWED),
  adjusts('one above the int32 maximum', 1, 0, MAX, aboveMaximum(1)),
  adjusts('above the int32 maximum from it', MAX, 0, 1, aboveMaximum(MAX)),
  adjusts('by the int32 minimum from its maximum, one below 0', MAX, 0, -MAX - 1, belowMinimum(MAX)),
  adjusts('down by one when all of the largest stock is held', MAX, MAX, -1, belowMinimum(0)),
  updates('to exactly what is held', 10, 3, 3, undefined, ALLOWED),
  updates('to one below what is held', 10, 3, 2, undefined, belowReserved(10, 3)),
  updates('to 0 when nothing is held', 10, 0, 0, undefined, ALLOWED),
  updates('to the int32 maximum', 10, 3, MAX, undefined, ALLOWED),
  updates('at the expected version', 10, 3, 3, 0, ALLOWED),
  updates('one version behind', 10, 3, 3, 1, versionMismatch(2)),
  updates('one version behind and below what is held: the version first', 10, 3, 2, 1, versionMismatch(2)),
  removes('nothing held', 10, 0, ALLOWED),
  removes('one held', 10, 1, { status: 'reserved', reservedQuantity: 1 }),
  settles('committed', 10, 3, 3, ALLOWED),
  settles('committed', 10, 3, 4, moreThanHeld(3)),
  settles('released', 10, 3, 3, ALLOWED),
  settles('released', 10, 3, 4, moreThanHeld(3)),
  settles('committed', MAX, MAX, MAX, ALLOWED),
  settles('released', 0, 0, 1, moreThanHeld(0)),
];

/**
 * The stock rules of @stock/domain and the adapter's guarded writes agree at
 * every edge: the rule allows exactly the writes the adapter makes, and a
 * refused write changes nothing and gives the rule's reason.
 */
export function stockRulesContract(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  const write = <T>(call: (products: ProductRepository) => Promise<T>) =>
    store.unitOfWork.run((tx) => call(tx.products), { singleCall: true });

  /** A product with `stock` in stock, `reserved` of it held, as the store keeps it. */
  async function aProductWith(stock: number, reserved: number): Promise<Product> {
    const { id } = await write((p) => p.add(aProduct({ quantityInStock: stock }), aContext()));
    if (reserved > 0) await write((p) => p.hold(id, reserved, aContext()));
    return (await store.products.findById(id))!;
  }

  before(async function () {
    store = await open(this, Date.now);
  });
  beforeEach(async () => store.reset());
  after(async () => store?.close());

  for (const edge of EDGES) {
    it(edge.name, async () => {
      const before = await aProductWith(edge.stock, edge.reserved);
      expect(edge.rule(before), 'the domain rule').to.deep.equal(edge.refused);
      const answered = await write((p) => edge.write(p, before));
      if (edge.refused === undefined) {
        expect(answered, 'the guarded write').to.deep.equal({ made: true });
        return;
      }
      expect(answered.made, 'the guarded write').to.equal(false);
      if (!answered.made && answered.refusal) expect(answered.refusal, 'its reason').to.deep.equal(edge.refused);
      expect(await store.products.findById(before.id), 'the product after a refusal').to.deep.equal(before);
    });
  }
}
