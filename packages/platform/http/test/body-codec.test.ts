import { Invalid, ValidationError } from '@platform/kernel';
import { expect } from 'chai';
import * as t from 'io-ts';
import { decodeBody, decodeInteger, field, isNumber, isString, optional, required } from '../src';

const Thing = t.type({
  name: required(
    field('Name', isString, 'a string', (value: string) =>
      value.trim() ? value.trim() : new Invalid('must not be blank'),
    ),
  ),
  size: optional(
    field('Size', isNumber, 'a number', (value: number) => value),
    1,
  ),
});

const errorsOf = (body: Record<string, unknown>) => {
  try {
    decodeBody(Thing, body, 'a thing');
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
  return undefined;
};

describe('decodeBody', () => {
  it('decodes into the parsers’ values, matching names case-insensitively and filling defaults', () => {
    expect(decodeBody(Thing, { NAME: ' lamp ' }, 'a thing')).to.deep.equal({ name: 'lamp', size: 1 });
    expect(decodeBody(Thing, { name: 'lamp', size: null }, 'a thing')).to.deep.equal({ name: 'lamp', size: 1 });
  });

  it('names every bad field at once: wrong types, broken rules, unknown and doubled properties', () => {
    expect(errorsOf({ name: ' ', size: 'big' })).to.deep.equal({
      name: ['must not be blank'],
      size: ['must be a number'],
    });
    expect(errorsOf({ size: 2 })).to.deep.equal({ name: ['is required'] });
    expect(errorsOf({ name: 'a', colour: 'red' })).to.deep.equal({ colour: ['is not a property of a thing'] });
    expect(errorsOf({ name: 'a', Name: 'b' })).to.deep.equal({
      name: ['is given more than once (property names are case-insensitive)'],
    });
  });

  it('names __proto__ as the unknown property it is, as JSON.parse hands it over', () => {
    const errors = errorsOf(
      JSON.parse('{"name":"a","__proto__":{"size":2},"constructor":1}') as Record<string, unknown>,
    )!;
    expect(Object.keys(errors)).to.deep.equal(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(errors, '__proto__')?.value).to.deep.equal(['is not a property of a thing']);
  });
});

describe('decodeInteger', () => {
  it('takes plain decimal digits within the bounds, and names the parameter otherwise', () => {
    expect(decodeInteger('id', '42', 1)).to.equal(42);
    for (const raw of ['0', '01', '1e3', '-1', '2147483648', '', undefined, ['1']]) {
      expect(() => decodeInteger('id', raw, 1), String(raw)).to.throw(ValidationError);
    }
  });
});
