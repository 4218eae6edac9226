import type { Condition, Term } from '@stock/domain';

/** What each name a condition reads is in SQL: a column, a parameter, or an expression of them. */
export type Columns<Name extends string> = Readonly<Record<Name, string>>;

export interface RenderOptions {
  /**
   * PostgreSQL: each value in a sum widened to bigint, so that a sum of two int4 columns near INT32_MAX compares
   * instead of overflowing (SQLite's integers are 64-bit already). Off where an expression must be written exactly as
   * an expression index writes it.
   */
  readonly bigint?: boolean;
}

/**
 * A domain Condition (@stock/domain's stock rules) as a SQL boolean
 * expression, the same on PostgreSQL and SQLite: the statement that renders
 * it decides exactly what the aggregate's `holds` decides (the rendered-rules
 * test holds the two together at every boundary). Sums are written flat,
 * `("a" - "b" - "c")`, as the expression indexes write them.
 */
export function renderCondition<Name extends string>(
  condition: Condition<Name>,
  columns: Columns<Name>,
  options: RenderOptions = {},
): string {
  switch (condition.kind) {
    case 'compare':
      return `${renderTerm(condition.left, columns, options)} ${condition.op} ${renderTerm(condition.right, columns, options)}`;
    case 'flag':
      return columns[condition.name];
    case 'not':
      return `not (${renderCondition(condition.condition, columns, options)})`;
    case 'all':
    case 'any': {
      const parts = condition.conditions.map((each) => `(${renderCondition(each, columns, options)})`);
      return parts.length === 0
        ? condition.kind === 'all'
          ? '1 = 1'
          : '1 = 0'
        : `(${parts.join(` ${condition.kind === 'all' ? 'and' : 'or'} `)})`;
    }
  }
}

/** A domain Term as a SQL integer expression. */
export function renderTerm<Name extends string>(
  term: Term<Name>,
  columns: Columns<Name>,
  options: RenderOptions = {},
): string {
  if (term.kind !== 'sum') return operand(term, columns, options, false);
  return `(${chain(term, columns, options)})`;
}

/** A left-nested sum without its inner parentheses: a - b - c. */
function chain<Name extends string>(term: Term<Name>, columns: Columns<Name>, options: RenderOptions): string {
  if (term.kind !== 'sum') return operand(term, columns, options, true);
  const right =
    term.right.kind === 'sum' ? renderTerm(term.right, columns, options) : operand(term.right, columns, options, true);
  return `${chain(term.left, columns, options)} ${term.sign === 1 ? '+' : '-'} ${right}`;
}

function operand<Name extends string>(
  term: Exclude<Term<Name>, { kind: 'sum' }>,
  columns: Columns<Name>,
  { bigint }: RenderOptions,
  inSum: boolean,
): string {
  const sql = term.kind === 'value' ? columns[term.name] : String(term.value);
  return bigint && inSum && term.kind === 'value' ? `cast(${sql} as bigint)` : sql;
}
