/**
 * A stock rule's condition written once, as data: the aggregate evaluates it
 * (`holds`), and a store that keeps a one-statement path for speed renders the
 * same tree into SQL (persistence's render-condition.ts), so the two cannot
 * say different things. Only numbers and flags, sums and comparisons: what a
 * rule on quantities needs, and what every SQL dialect computes alike.
 */

/** An integer a condition reads (a level's on hand, a product's threshold, a change's delta), or a sum of them. */
export type Term<Name extends string> =
  | { readonly kind: 'value'; readonly name: Name }
  | { readonly kind: 'constant'; readonly value: number }
  | { readonly kind: 'sum'; readonly left: Term<Name>; readonly right: Term<Name>; readonly sign: 1 | -1 };

export type Comparison = '<' | '<=' | '=' | '>=' | '>';

export type Condition<Name extends string> =
  | { readonly kind: 'compare'; readonly op: Comparison; readonly left: Term<Name>; readonly right: Term<Name> }
  /** A flag the condition reads (a product's low-stock alert). */
  | { readonly kind: 'flag'; readonly name: Name }
  | { readonly kind: 'all' | 'any'; readonly conditions: readonly Condition<Name>[] }
  | { readonly kind: 'not'; readonly condition: Condition<Name> };

/** What a condition is evaluated against: each name it reads, a number or (for a flag) a boolean. */
export type Values<Name extends string> = Readonly<Record<Name, number | boolean>>;

export const value = <Name extends string>(name: Name): Term<Name> => ({ kind: 'value', name });
export const constant = (value: number): Term<never> => ({ kind: 'constant', value });
export const plus = <N extends string>(left: Term<N>, right: Term<N>): Term<N> => ({
  kind: 'sum',
  left,
  right,
  sign: 1,
});
export const minus = <N extends string>(left: Term<N>, right: Term<N>): Term<N> => ({
  kind: 'sum',
  left,
  right,
  sign: -1,
});

const compare =
  (op: Comparison) =>
  <N extends string>(left: Term<N>, right: Term<N>): Condition<N> => ({ kind: 'compare', op, left, right });
export const below = compare('<');
export const atMost = compare('<=');
export const equal = compare('=');
export const atLeast = compare('>=');
export const above = compare('>');

export const flag = <Name extends string>(name: Name): Condition<Name> => ({ kind: 'flag', name });
export const all = <N extends string>(...conditions: Condition<N>[]): Condition<N> => ({ kind: 'all', conditions });
export const any = <N extends string>(...conditions: Condition<N>[]): Condition<N> => ({ kind: 'any', conditions });
export const not = <N extends string>(condition: Condition<N>): Condition<N> => ({ kind: 'not', condition });

/** What `term` is for `values`. */
export function evaluate<N extends string>(term: Term<N>, values: Values<N>): number {
  switch (term.kind) {
    case 'value':
      return Number(values[term.name]);
    case 'constant':
      return term.value;
    case 'sum':
      return evaluate(term.left, values) + term.sign * evaluate(term.right, values);
  }
}

/** Whether `condition` holds for `values`. */
export function holds<N extends string>(condition: Condition<N>, values: Values<N>): boolean {
  switch (condition.kind) {
    case 'compare': {
      const [left, right] = [evaluate(condition.left, values), evaluate(condition.right, values)];
      switch (condition.op) {
        case '<':
          return left < right;
        case '<=':
          return left <= right;
        case '=':
          return left === right;
        case '>=':
          return left >= right;
        case '>':
          return left > right;
      }
      break;
    }
    case 'flag':
      return values[condition.name] === true;
    case 'all':
      return condition.conditions.every((each) => holds(each, values));
    case 'any':
      return condition.conditions.some((each) => holds(each, values));
    case 'not':
      return !holds(condition.condition, values);
  }
}

/** Every name a condition reads, each once, in the order it first reads them. */
export function namesOf<N extends string>(condition: Condition<N>): N[] {
  const names = new Set<N>();
  const ofTerm = (term: Term<N>): void => {
    if (term.kind === 'value') names.add(term.name);
    if (term.kind === 'sum') [term.left, term.right].forEach(ofTerm);
  };
  const visit = (each: Condition<N>): void => {
    if (each.kind === 'compare') [each.left, each.right].forEach(ofTerm);
    else if (each.kind === 'flag') names.add(each.name);
    else if (each.kind === 'not') visit(each.condition);
    else each.conditions.forEach(visit);
  };
  visit(condition);
  return [...names];
}
