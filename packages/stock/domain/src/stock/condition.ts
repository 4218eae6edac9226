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

type Compiled<T> = (values: Values<string>) => T;

/**
 * Each term and condition is turned once into a closure, kept beside the tree: a rule is read on every request (a
 * product's availability, a change's bounds), and walking its tree each time cost more than the rule's arithmetic.
 */
const compiledTerms = new WeakMap<Term<string>, Compiled<number>>();
const compiledConditions = new WeakMap<Condition<string>, Compiled<boolean>>();

function compileTerm(term: Term<string>): Compiled<number> {
  let fn = compiledTerms.get(term);
  if (fn) return fn;
  switch (term.kind) {
    case 'value': {
      const { name } = term;
      fn = (values) => Number(values[name]);
      break;
    }
    case 'constant': {
      const { value: constantValue } = term;
      fn = () => constantValue;
      break;
    }
    case 'sum': {
      const [left, right] = [compileTerm(term.left), compileTerm(term.right)];
      fn = term.sign === 1 ? (values) => left(values) + right(values) : (values) => left(values) - right(values);
      break;
    }
  }
  compiledTerms.set(term, fn);
  return fn;
}

const COMPARE: Readonly<Record<Comparison, (left: number, right: number) => boolean>> = {
  '<': (left, right) => left < right,
  '<=': (left, right) => left <= right,
  '=': (left, right) => left === right,
  '>=': (left, right) => left >= right,
  '>': (left, right) => left > right,
};

function compileCondition(condition: Condition<string>): Compiled<boolean> {
  let fn = compiledConditions.get(condition);
  if (fn) return fn;
  switch (condition.kind) {
    case 'compare': {
      const [left, right, op] = [compileTerm(condition.left), compileTerm(condition.right), COMPARE[condition.op]];
      fn = (values) => op(left(values), right(values));
      break;
    }
    case 'flag': {
      const { name } = condition;
      fn = (values) => values[name] === true;
      break;
    }
    case 'all': {
      const parts = condition.conditions.map(compileCondition);
      fn = (values) => parts.every((part) => part(values));
      break;
    }
    case 'any': {
      const parts = condition.conditions.map(compileCondition);
      fn = (values) => parts.some((part) => part(values));
      break;
    }
    case 'not': {
      const inner = compileCondition(condition.condition);
      fn = (values) => !inner(values);
      break;
    }
  }
  compiledConditions.set(condition, fn);
  return fn;
}

/** What `term` is for `values`. */
export function evaluate<N extends string>(term: Term<N>, values: Values<N>): number {
  return compileTerm(term)(values);
}

/** Whether `condition` holds for `values`. */
export function holds<N extends string>(condition: Condition<N>, values: Values<N>): boolean {
  return compileCondition(condition)(values);
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
