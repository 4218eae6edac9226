import { ValidationError } from '@platform/kernel';
import { decodeInteger, singleQueryValue } from '@platform/http';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '@stock/application';
import { TRANSFER_STATUSES, type TransferKey, type TransferPageQuery, type TransferStatus } from '@stock/domain';
import type { Context } from 'koa';

/** The query parameters of GET /api/stock-transfers. */
export const TRANSFER_LIST_PARAMETERS = ['limit', 'after', 'status', 'productId'] as const;

// 0 (in transit) or 1, the creation time in epoch milliseconds, the transfer's id.
const CURSOR = /^([01])\.(\d{1,15})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** `after`: where the next page starts, opaque to clients (they follow the Link header). */
export function encodeTransferCursor({ inTransit, createdAt, id }: TransferKey): string {
  return `${inTransit ? 0 : 1}.${createdAt.getTime()}.${id}`;
}

function decodeCursor(raw: string): TransferKey {
  const [, rank, time, id] = CURSOR.exec(raw) ?? [];
  const createdAt = new Date(Number(time));
  if (id === undefined || Number.isNaN(createdAt.getTime()))
    throw new ValidationError({ after: ['must be the cursor of a next link (from the Link header)'] });
  return { inTransit: rank === '0', createdAt, id };
}

function decodeStatus(raw: string): TransferStatus {
  if (!(TRANSFER_STATUSES as readonly string[]).includes(raw))
    throw new ValidationError({ status: [`must be one of ${TRANSFER_STATUSES.join(', ')}`] });
  return raw as TransferStatus;
}

/** The page asked for, each bad parameter a 400 naming it. */
export function transferPageQuery(ctx: Context): TransferPageQuery {
  const [limit, after, status, productId] = TRANSFER_LIST_PARAMETERS.map((name) => singleQueryValue(ctx, name));
  return {
    limit: limit === undefined ? DEFAULT_PAGE_SIZE : decodeInteger('limit', limit, 1, MAX_PAGE_SIZE),
    ...(after !== undefined && { after: decodeCursor(after) }),
    ...(status !== undefined && { status: decodeStatus(status) }),
    ...(productId !== undefined && { productId: decodeInteger('productId', productId, 1) }),
  };
}

/** The next page's link: the same filters and size, from `next`. */
export function nextTransfersLink(query: TransferPageQuery, next: TransferKey): string {
  const params = new URLSearchParams({ limit: String(query.limit) });
  if (query.status) params.set('status', query.status);
  if (query.productId !== undefined) params.set('productId', String(query.productId));
  params.set('after', encodeTransferCursor(next));
  return `</api/stock-transfers?${params.toString()}>; rel="next"`;
}
