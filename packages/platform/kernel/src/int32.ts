/**
 * The largest int32. Ids, quantities, versions, limits and cursors are int32
 * columns in every store, so every integer an API takes fits one.
 */
export const INT32_MAX = 2_147_483_647;
