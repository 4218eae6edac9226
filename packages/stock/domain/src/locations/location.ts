import { allValid, INT32_MAX, Invalid } from '@platform/kernel';
import { text } from '../products/product';

/**
 * A place stock is kept: a warehouse, a shop floor, a 3PL. Every product's
 * stock is the sum of its levels at the locations.
 */
export interface Location {
  readonly id: number;
  /** 1–50 characters of a-z, 0-9 and -, unique: what integrations name the location by. */
  readonly code: string;
  readonly name: string;
  /** Lower first: the order holds are filled in under the `priority` allocation. */
  readonly priority: number;
}

/**
 * The location every store has from its first start, with the stock that was
 * there before locations were: a client that knows nothing of locations reads
 * and writes its stock here. It is never removed.
 */
export const DEFAULT_LOCATION_ID = 1;
export const DEFAULT_LOCATION_CODE = 'default';

/** Location ids are positive int32s, assigned by the store. */
export function isLocationId(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= INT32_MAX;
}

export const LOCATION_CODE_PATTERN = /^[a-z0-9-]{1,50}$/;
export const LOCATION_NAME_MAX_LENGTH = 200;

const nameText = text(LOCATION_NAME_MAX_LENGTH);

export const locationFields = {
  code: (value: string): string | Invalid => {
    return LOCATION_CODE_PATTERN.test(value) ? value : new Invalid('must be 1 to 50 characters of a-z, 0-9 and -');
  },
  name: (value: string): string | Invalid => {
    const trimmed = value.trim();
    return trimmed.length === 0 ? new Invalid('is required and must not be blank') : nameText(trimmed);
  },
  priority: (value: number): number | Invalid => {
    if (!Number.isInteger(value) || value < -INT32_MAX - 1 || value > INT32_MAX)
      return new Invalid(`must be an integer from ${-INT32_MAX - 1} to ${INT32_MAX}`);
    return value;
  },
};

export interface LocationDraftInput {
  readonly code: string;
  readonly name: string;
  readonly priority?: number;
}

/** What a client asks to create; only `create` makes one, so every instance is valid. */
export class LocationDraft {
  private constructor(
    readonly code: string,
    readonly name: string,
    readonly priority: number,
  ) {}

  /** Answers the draft (priority 0 when absent), or throws one ValidationError naming every broken field. */
  static create(input: LocationDraftInput): LocationDraft {
    const { code, name, priority } = allValid({
      code: locationFields.code(input.code),
      name: locationFields.name(input.name),
      priority: locationFields.priority(input.priority ?? 0),
    });
    return new LocationDraft(code, name, priority);
  }
}

/** Locations in the order the `priority` allocation fills from: lower priority first, then lower id. */
export function byPriority(a: Location, b: Location): number {
  return a.priority - b.priority || a.id - b.id;
}
