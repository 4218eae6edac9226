import { isProductId } from '@commerce/shared-kernel';
import { allValid, INT32_MAX, Invalid } from '@platform/kernel';
import { isLocationId } from '../locations/location';
import { text } from '../products/product';

export const TRANSFER_STATUSES = ['in-transit', 'received', 'cancelled'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/** Units of one product on their way from one location to another. */
export interface StockTransfer {
  readonly id: string;
  readonly productId: number;
  readonly fromLocationId: number;
  readonly toLocationId: number;
  readonly quantity: number;
  /** The caller's own name for it: unique, so a repeated request answers the first transfer. */
  readonly reference: string;
  readonly status: TransferStatus;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/**
 * A transfer's place in the list of transfers: those in transit first (they wait for someone), then newest first, the
 * id breaking ties. A page starts after the key of the one before's last transfer.
 */
export interface TransferKey {
  readonly inTransit: boolean;
  readonly createdAt: Date;
  readonly id: string;
}

export function transferKey({ status, createdAt, id }: StockTransfer): TransferKey {
  return { inTransit: status === 'in-transit', createdAt, id };
}

/** Below 0 when `a` comes before `b` in the list of transfers. */
export function compareTransferKeys(a: TransferKey, b: TransferKey): number {
  if (a.inTransit !== b.inTransit) return a.inTransit ? -1 : 1;
  const time = b.createdAt.getTime() - a.createdAt.getTime();
  if (time !== 0) return time;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** What a transition asked of a transfer does: go ahead (in transit), nothing (already there), or refuse. */
export function transferTransition(
  status: TransferStatus,
  to: 'received' | 'cancelled',
): 'apply' | 'unchanged' | 'refuse' {
  if (status === 'in-transit') return 'apply';
  return status === to ? 'unchanged' : 'refuse';
}

export const TRANSFER_REFERENCE_MAX_LENGTH = 200;

export interface TransferRequestInput {
  readonly productId: number;
  readonly fromLocationId: number;
  readonly toLocationId: number;
  readonly quantity: number;
  readonly reference: string;
}

const transferReference = text(TRANSFER_REFERENCE_MAX_LENGTH);

/** What a caller asks to move; only `create` makes one, so every instance is valid. */
export class TransferRequest {
  private constructor(
    readonly productId: number,
    readonly fromLocationId: number,
    readonly toLocationId: number,
    readonly quantity: number,
    readonly reference: string,
  ) {}

  /** Answers the request, or throws one ValidationError naming every broken field. */
  static create(input: TransferRequestInput): TransferRequest {
    const locationId = (value: number) =>
      isLocationId(value) ? value : new Invalid(`must be an integer from 1 to ${INT32_MAX}`);
    const fields = allValid({
      productId: isProductId(input.productId)
        ? input.productId
        : new Invalid(`must be an integer from 1 to ${INT32_MAX}`),
      fromLocationId: locationId(input.fromLocationId),
      toLocationId:
        input.toLocationId === input.fromLocationId
          ? new Invalid('must differ from fromLocationId')
          : locationId(input.toLocationId),
      quantity:
        Number.isInteger(input.quantity) && input.quantity >= 1 && input.quantity <= INT32_MAX
          ? input.quantity
          : new Invalid(`must be an integer from 1 to ${INT32_MAX}`),
      reference: (() => {
        const trimmed = input.reference.trim();
        return trimmed.length === 0 ? new Invalid('is required and must not be blank') : transferReference(trimmed);
      })(),
    });
    return new TransferRequest(
      fields.productId,
      fields.fromLocationId,
      fields.toLocationId,
      fields.quantity,
      fields.reference,
    );
  }
}
