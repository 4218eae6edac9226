/** An amount in the order's currency, as a person reads it (e.g. €49.00). */
export function money(amount: number, currency = 'EUR'): string {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).format(amount);
}

export const dateTime = (at: string) =>
  new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at));
