/**
 * Available = in stock − reserved − backordered (Product.availableQuantity), written exactly as the expression
 * indexes of the search migration write it: a planner uses an expression index only for the same expression.
 */
export const AVAILABLE = '("quantity_in_stock" - "reserved_quantity" - "backordered_quantity")';

/** Product.stockState (stockStateOf) as one expression, indexed with the id so a state's products page by id. */
export const STOCK_STATE = `(case when ${AVAILABLE} <= 0 then 'out' when ${AVAILABLE} < "low_stock_threshold" then 'low' else 'in' end)`;
