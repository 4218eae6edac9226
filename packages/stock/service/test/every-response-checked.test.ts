import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const TESTS = [import.meta.dirname, join(import.meta.dirname, '..', '..', 'http-koa', 'test')];
/** The helpers that send and check: http-koa's ApiUnderTest (request, raw) and checked fetches, and what wraps them. */
const HELPERS = new Set(['support.ts', 'checked-fetch.ts', 'api-under-test.ts', 'contract.ts']);

describe("stock's HTTP tests", () => {
  it('check every response against docs/openapi.yaml: none calls fetch or callWith around the check', () => {
    const unchecked = TESTS.flatMap((folder) =>
      readdirSync(folder, { recursive: true, encoding: 'utf8' })
        .filter((name) => name.endsWith('.ts') && !HELPERS.has(name.split('/').at(-1)!))
        .flatMap((name) =>
          readFileSync(join(folder, name), 'utf8')
            .split('\n')
            .map((line, index) => ({ where: `${name}:${index + 1}`, line }))
            .filter(
              ({ line }) =>
                /(?<![\w.])fetch\(/.test(line) ||
                /\bcallWith\b.*from '@commerce\/identity\/testing'/.test(line) ||
                /^\s+callWith,$/.test(line),
            )
            .map(({ where, line }) => `${where} ${line.trim()}`),
        ),
    );
    // Use support's request, or checked-fetch's checkedFetch, callWith, or uncheckedFetch with a reason.
    expect(unchecked).to.deep.equal([]);
  });
});
