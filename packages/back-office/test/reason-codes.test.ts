import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ADJUSTMENT_REASON_CODES } from '../src/products/reason-codes';

const OPENAPI = join(import.meta.dirname, '..', '..', '..', 'docs', 'openapi.yaml');

describe('the back office’s Reason list', () => {
  it('offers exactly the reason codes the stock API takes for an adjustment', () => {
    const spec = parse(readFileSync(OPENAPI, 'utf8')) as {
      components: { schemas: { AdjustmentReasonCode: { enum: (string | null)[] } } };
    };
    const codes = spec.components.schemas.AdjustmentReasonCode.enum.filter((code) => code !== null);
    expect([...ADJUSTMENT_REASON_CODES]).to.deep.equal(codes);
  });
});
