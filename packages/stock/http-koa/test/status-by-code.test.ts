import type { StockErrorCode } from '@stock/domain';
import { expect } from 'chai';
import { STATUS_BY_CODE } from '../src/problem';

// What the compiler guarantees about the code-to-status table; `pnpm typecheck` (tsc over every test) is where these
// fail. They are
// exported only so that the linter does not take them for unused values.

/** True only when A and B are the same type (not merely assignable either way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** The table is keyed by exactly the stock error codes: not by string, not by a subset. */
export const keyedByTheCodes: Same<keyof typeof STATUS_BY_CODE, StockErrorCode> = true;

/** A code added to the union without a status does not compile: the table's type needs every code. */
type WithANewCode = StockErrorCode | 'A_NEW_CODE';
// @ts-expect-error -- 'A_NEW_CODE' has no status: this is the error a new code without one gets.
export const withoutItsStatus: Readonly<Record<WithANewCode, number>> = { ...STATUS_BY_CODE };

describe("stock's code-to-status table", () => {
  it('answers every code with a 4xx: a domain error is never a 500', () => {
    for (const [code, status] of Object.entries(STATUS_BY_CODE)) expect(status, code).to.be.within(400, 499);
  });
});
