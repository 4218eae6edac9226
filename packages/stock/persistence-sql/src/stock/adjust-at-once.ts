import { Routine } from '@mikro-orm/core';
import { query } from '@platform/persistence';
import {
  ARRIVAL_FILLS,
  AVAILABLE,
  KEEPS_HOLDS,
  LOW_STOCK_STEADY,
  MOVES_STOCK,
  not,
  plus,
  value,
  WITHIN_STOCK_MAX,
} from '@stock/domain';
import { renderCondition, renderTerm } from './render-condition';
import { type ProductDbRow, productColumns } from '../tables/product';
import { MOVEMENT_COLUMNS } from '../tables/stock-movement';

/**
 * PostgreSQL's adjustment made at once (ProductStockRepository.adjustAtOnce):
 * a function, so that after waiting for the product's lock each of its
 * statements reads the rows as they are now (READ COMMITTED takes a snapshot
 * per statement), where one statement would re-check every row it read after
 * the wait. Its condition is the aggregate's own rules rendered
 * (render-condition.ts); it is described here once, as a MikroORM routine,
 * and `pnpm db:migration` generates the migration that makes it (the drift
 * test fails when a rule changes until one is generated).
 */

/** The function's parameters, in the order the call takes them. */
const PARAMS = {
  p_product: 'integer',
  p_location: 'integer',
  p_delta: 'integer',
  p_hysteresis: 'integer',
  p_reason_code: 'text',
  p_reason: 'text',
  p_request_id: 'text',
  p_actor: 'text',
  p_trace_id: 'text',
  p_at: 'timestamptz',
} as const;

/**
 * When ProductStock.adjust answers exactly one `adjusted` change and nothing
 * else, in the aggregate's own rules, read from the product as its lock found
 * it (`p`) and its level (`l`): it moves stock (MOVES_STOCK), the level keeps
 * its holds (KEEPS_HOLDS), the product stays within STOCK_MAX, no backorder
 * waits for the stock (ARRIVAL_FILLS), and the low-stock alert stays as it
 * is (LOW_STOCK_STEADY, at what is available after the delta).
 */
export const PLAIN_ADJUSTMENT = (() => {
  const wide = { bigint: true };
  const product = {
    quantityInStock: 'p.quantity_in_stock',
    reservedQuantity: 'p.reserved_quantity',
    committedQuantity: 'p.committed_quantity',
    qualityControlQuantity: 'p.quality_control_quantity',
    damagedQuantity: 'p.damaged_quantity',
    backorderedQuantity: 'p.backordered_quantity',
  };
  const level = {
    onHand: 'l.on_hand',
    reserved: 'l.reserved',
    committed: 'l.committed',
    qualityControl: 'l.quality_control',
    damaged: 'l.damaged',
  };
  const after = renderTerm(plus(AVAILABLE, value('delta')), { ...product, delta: 'p_delta' }, wide);
  const none = '0';
  return [
    renderCondition(MOVES_STOCK, {
      quantityDelta: 'p_delta',
      reservedDelta: none,
      committedDelta: none,
      qualityControlDelta: none,
      damagedDelta: none,
    }),
    renderCondition(KEEPS_HOLDS, { ...level, delta: 'p_delta' }, wide),
    renderCondition(WITHIN_STOCK_MAX, { quantityInStock: product.quantityInStock, delta: 'p_delta' }, wide),
    renderCondition(not(ARRIVAL_FILLS), { delta: 'p_delta', backorderedQuantity: product.backorderedQuantity }, wide),
    renderCondition(
      LOW_STOCK_STEADY,
      {
        available: after,
        lowStockThreshold: 'p.low_stock_threshold',
        lowStockAlert: 'p.low_stock_alert',
        hysteresis: 'p_hysteresis',
      },
      wide,
    ),
  ].join(' and ');
})();

/**
 * The function: the product locked first, as every writer locks a product
 * before its levels; the product and its level read after the lock (a
 * statement of their own: as they are now); nothing changed and no row
 * answered unless the level exists and PLAIN_ADJUSTMENT holds (the
 * caller then takes the transaction, where the aggregate decides and
 * refuses); else the level, the product's stock, version and ledger sequence,
 * and the one `adjusted` movement, as ProductStock.adjust and a save would
 * write them. Answers the product after. Only available units are adjusted
 * at once: an adjustment in another state takes the transaction.
 */
export const ADJUST_AT_ONCE_ROUTINE = new Routine({
  name: 'stock_adjust_at_once',
  type: 'function',
  language: 'plpgsql',
  params: Object.fromEntries(Object.entries(PARAMS).map(([name, type]) => [name, { type }])),
  returns: { runtimeType: 'object', columnType: 'setof product' },
  body: `begin
  perform 1 from product where id = p_product for update;
  if not exists (select 1 from product p join stock_level l on l.product_id = p.id and l.location_id = p_location
      where p.id = p_product and ${PLAIN_ADJUSTMENT}) then
    return;
  end if;
  update stock_level set on_hand = on_hand + p_delta where product_id = p_product and location_id = p_location;
  return query with moved as (
      update product set quantity_in_stock = quantity_in_stock + p_delta, movement_sequence = movement_sequence + 1,
        version = version + 1 where id = p_product returning *
    ),
    appended as (
      insert into stock_movement (${MOVEMENT_COLUMNS.replaceAll('"', '')})
      select id, p_location, null, 'adjusted', p_delta, 0, 0, 0, 0, quantity_in_stock, reserved_quantity, p_reason_code,
        p_reason, null, p_request_id, p_actor, p_trace_id, movement_sequence, p_at from moved
    )
    select * from moved;
end`,
});

/**
 * The call: product, location, delta, hysteresis, then the movement's reason code, reason, request, actor, trace and
 * time.
 * Answers the product after, or no row.
 */
export const ADJUST_AT_ONCE = query<unknown[], ProductDbRow>(
  `select ${productColumns('postgresql')} from "stock_adjust_at_once"(${Object.values(PARAMS)
    .map((type) => `?::${type}`)
    .join(', ')})`,
);
