import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const TESTS = [import.meta.dirname, join(import.meta.dirname, '..', '..', 'http-koa', 'test')];
/** The helpers that send and check: support's request and raw, checked-fetch's functions. */
const HELPERS = new Set(['support.ts', 'checked-fetch.ts']);

describe("stock's HTTP tests", () => {
  it('check every response against docs/openapi.yaml: none calls fetch or callWith around the check', () => {
    const unchecked = TESTS.flatMap((folder) =>
      readdirSync(folder)
        .filter((name) => name.endsWith('.ts') && !HELPERS.has(name))
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
