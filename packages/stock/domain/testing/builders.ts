import { randomUUID } from 'node:crypto';
import {
  ANONYMOUS_CALLER,
  DEFAULT_LOCATION_ID,
  LocationDraft,
  type LocationDraftInput,
  type MovementContext,
  Money,
  type ProductDetailsInput,
  ProductDetails,
  type StockTransfer,
} from '../src';

let sequence = 0;

/** Valid product details, unique by name, with any field overridden. */
export function aProduct(overrides: Partial<ProductDetailsInput> = {}): ProductDetails {
  sequence += 1;
  return ProductDetails.create({
    name: `Product ${sequence}`,
    description: `Description of product ${sequence}`,
    price: Money.fromDecimalString('19.99'),
    quantityInStock: 10,
    ...overrides,
  });
}

/** Valid product details as a JSON request body. */
export function aProductBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { name, description, price, quantityInStock } = aProduct();
  return { name, description, price: price.toNumber(), quantityInStock, ...overrides };
}

/** The context of a write in a test: now, by the anonymous caller, and whatever else is given. */
export function aContext(overrides: Partial<MovementContext> = {}): MovementContext {
  return { at: new Date(), actor: ANONYMOUS_CALLER, ...overrides };
}

/** A valid location draft, unique by code, with any field overridden. */
export function aLocation(overrides: Partial<LocationDraftInput> = {}): LocationDraft {
  sequence += 1;
  return LocationDraft.create({ code: `location-${sequence}`, name: `Location ${sequence}`, ...overrides });
}

/** A transfer in transit of 3 units from the default location, unique by id and reference, any field overridden. */
export function aTransfer(
  overrides: Partial<StockTransfer> & Pick<StockTransfer, 'productId' | 'toLocationId'>,
): StockTransfer {
  const at = new Date();
  return {
    id: randomUUID(),
    fromLocationId: DEFAULT_LOCATION_ID,
    quantity: 3,
    reference: `transfer ${randomUUID()}`,
    status: 'in-transit',
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}
