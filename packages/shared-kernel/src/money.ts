import { Invalid } from '@platform/kernel';

/**
 * An exact amount with two decimal places, held as integer cents.
 * No float arithmetic ever touches an amount: a JSON number is read through
 * its shortest decimal form, which is exactly what the client wrote for up to
 * 15 significant digits, the most this type accepts.
 */
export class Money {
  /** numeric(15,2): the largest amount PostgreSQL stores and a double represents exactly. */
  static readonly MAX_CENTS = 999_999_999_999_999;

  private constructor(readonly cents: number) {}

  static fromCents(cents: number): Money {
    if (!Number.isSafeInteger(cents) || cents < 0 || cents > Money.MAX_CENTS) {
      throw new RangeError(`Not an amount in cents: ${cents}`);
    }
    return new Money(cents);
  }

  /** Parses a plain decimal such as "12", "12.5" or "12.50". */
  static fromDecimalString(text: string): Money {
    const match = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(text);
    if (!match) throw new RangeError(`Not a decimal amount: ${text}`);
    const [, units = '0', fraction = ''] = match;
    return Money.fromCents(Number(units) * 100 + Number(fraction.padEnd(2, '0')));
  }

  /** Reads a JSON number, or answers why it is not an amount. */
  static parse(this: void, value: number): Money | Invalid {
    if (!Number.isFinite(value)) return new Invalid('must be a finite number');
    if (value < 0) return new Invalid('must not be negative');
    const text = value.toString();
    if (/e/i.test(text))
      return new Invalid(value < 1 ? 'must have at most 2 decimal places' : 'must be at most 9999999999999.99');
    const [units = '', fraction = ''] = text.split('.');
    if (fraction.length > 2) return new Invalid('must have at most 2 decimal places');
    if (units.length > 13) return new Invalid('must be at most 9999999999999.99');
    return Money.fromDecimalString(text);
  }

  /** The nearest double to this amount; JSON.stringify prints it back as exactly this decimal. */
  toNumber(): number {
    return this.cents / 100;
  }

  /** "1234.50": the form PostgreSQL's numeric accepts and returns. */
  toString(): string {
    const units = Math.trunc(this.cents / 100);
    const fraction = String(this.cents % 100).padStart(2, '0');
    return `${units}.${fraction}`;
  }

  plus(other: Money): Money {
    return Money.fromCents(this.cents + other.cents);
  }

  /** This amount `quantity` times, exactly; a RangeError past the largest amount. */
  times(quantity: number): Money {
    return Money.fromCents(this.cents * quantity);
  }

  equals(other: Money): boolean {
    return this.cents === other.cents;
  }
}
