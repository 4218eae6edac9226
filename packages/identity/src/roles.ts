import { Scopes } from '@commerce/contracts';
import { ALL_SCOPES } from './resources';

const STOCK_CLERK = [Scopes.stock.read, Scopes.stock.write, Scopes.stock.fulfil, Scopes.sales.read];
const ORDER_MANAGER = [Scopes.sales.read, Scopes.sales.admin, Scopes.sales.refund, Scopes.stock.read];

/** What each role of a staff user lets them do; `admin` has every staff scope. */
export const ROLES = {
  'stock-clerk': STOCK_CLERK,
  'order-manager': ORDER_MANAGER,
  admin: [...new Set([...STOCK_CLERK, ...ORDER_MANAGER])],
} as const satisfies Record<string, readonly string[]>;

export type Role = keyof typeof ROLES;

export const ROLE_NAMES = Object.keys(ROLES) as Role[];

export const isRole = (name: string): name is Role => Object.hasOwn(ROLES, name);

/** The scopes `roles` grant, of those the issuer knows. */
export function scopesOfRoles(roles: readonly Role[]): Set<string> {
  const granted = new Set<string>(roles.flatMap((role) => ROLES[role]));
  return new Set(ALL_SCOPES.filter((scope) => granted.has(scope)));
}
