import { expect } from 'chai';
import {
  above,
  all,
  any,
  atLeast,
  atMost,
  below,
  type Condition,
  constant,
  equal,
  evaluate,
  flag,
  holds,
  minus,
  namesOf,
  not,
  plus,
  type Term,
  value,
  type Values,
} from '../../src';

describe('holds: comparisons', () => {
  const comparisons = [
    { name: 'below', compare: below, at: { 4: true, 5: false, 6: false } },
    { name: 'atMost', compare: atMost, at: { 4: true, 5: true, 6: false } },
    { name: 'equal', compare: equal, at: { 4: false, 5: true, 6: false } },
    { name: 'atLeast', compare: atLeast, at: { 4: false, 5: true, 6: true } },
    { name: 'above', compare: above, at: { 4: false, 5: false, 6: true } },
  ];

  for (const { name, compare, at } of comparisons) {
    for (const [x, expected] of Object.entries(at)) {
      it(`${name}(x, 5) ${expected ? 'holds' : 'does not hold'} at x = ${x}`, () => {
        expect(holds(compare(value('x'), constant(5)), { x: Number(x) })).to.equal(expected);
        expect(holds(compare(constant(Number(x)), value('y')), { y: 5 }), 'with the value on the right').to.equal(
          expected,
        );
      });
    }
  }
});

describe('evaluate', () => {
  const values = { a: 7, b: 3, c: 1, up: true, down: false };
  const cases: { title: string; term: Term<keyof typeof values>; expected: number }[] = [
    { title: 'reads a value by its name', term: value('a'), expected: 7 },
    { title: 'answers a constant as it is', term: constant(-2), expected: -2 },
    { title: 'adds', term: plus(value('a'), value('b')), expected: 10 },
    { title: 'subtracts', term: minus(value('a'), value('b')), expected: 4 },
    {
      title: 'subtracts from the left: (a − b) − c',
      term: minus(minus(value('a'), value('b')), value('c')),
      expected: 3,
    },
    {
      title: 'subtracts a difference: a − (b − c)',
      term: minus(value('a'), minus(value('b'), value('c'))),
      expected: 5,
    },
    { title: 'goes below 0', term: minus(value('b'), value('a')), expected: -4 },
    { title: 'reads a flag that is up as 1', term: plus(value('up'), constant(0)), expected: 1 },
    { title: 'reads a flag that is down as 0', term: value('down'), expected: 0 },
  ];

  for (const { title, term, expected } of cases) {
    it(title, () => expect(evaluate(term, values)).to.equal(expected));
  }
});

describe('holds: all, any, not and flags', () => {
  const yes = equal(value('n'), constant(1));
  const no = equal(value('n'), constant(2));
  const cases: { title: string; condition: Condition<'n' | 'f'>; values?: Values<'n' | 'f'>; expected: boolean }[] = [
    { title: 'all of nothing holds', condition: all(), expected: true },
    { title: 'all holds when every one holds', condition: all(yes, yes), expected: true },
    { title: 'all does not hold when one does not', condition: all(yes, no), expected: false },
    { title: 'any of nothing does not hold', condition: any(), expected: false },
    { title: 'any holds when one holds', condition: any(no, yes), expected: true },
    { title: 'any does not hold when none does', condition: any(no, no), expected: false },
    { title: 'not turns a holding condition over', condition: not(yes), expected: false },
    { title: 'not turns a failing condition over', condition: not(no), expected: true },
    { title: 'a flag that is true holds', condition: flag('f'), values: { n: 1, f: true }, expected: true },
    { title: 'a flag that is false does not hold', condition: flag('f'), values: { n: 1, f: false }, expected: false },
    { title: 'a flag holds only when true, not when a number', condition: flag('n'), expected: false },
    { title: 'nests: not(any(no, all(yes, flag)))', condition: not(any(no, all(yes, flag('f')))), expected: false },
  ];

  for (const { title, condition, values = { n: 1, f: true }, expected } of cases) {
    it(title, () => expect(holds(condition, values)).to.equal(expected));
  }
});

describe('namesOf', () => {
  const cases: { title: string; condition: Condition<string>; expected: string[] }[] = [
    { title: 'names a compared value', condition: below(value('a'), constant(1)), expected: ['a'] },
    { title: 'names no constant', condition: equal(constant(1), constant(1)), expected: [] },
    { title: 'names a flag', condition: flag('alert'), expected: ['alert'] },
    {
      title: 'names both sides of a sum, left first',
      condition: atLeast(minus(value('b'), value('a')), value('c')),
      expected: ['b', 'a', 'c'],
    },
    {
      title: 'names each once, in the order first read, through all, any and not',
      condition: all(
        flag('x'),
        atLeast(plus(value('a'), value('b')), value('a')),
        not(any(equal(value('c'), constant(1)), flag('x'))),
      ),
      expected: ['x', 'a', 'b', 'c'],
    },
    { title: 'names nothing in an empty all', condition: all(), expected: [] },
  ];

  for (const { title, condition, expected } of cases) {
    it(title, () => expect(namesOf(condition)).to.deep.equal(expected));
  }
});
