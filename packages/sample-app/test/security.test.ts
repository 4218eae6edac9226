import {
  openApiContract,
  operationsWithoutSecurity,
  scopesByOperation,
  undefinedSecuritySchemes,
} from '@platform/test-kit';
import { expect } from 'chai';
import { SPEC_FILE } from './sample-server';

describe("the API description's security", () => {
  const document = openApiContract(SPEC_FILE).document;

  it('says of every operation that it is open, naming no scheme it does not define', () => {
    expect(operationsWithoutSecurity(document)).to.deep.equal([]);
    expect(undefinedSecuritySchemes(document)).to.deep.equal([]);
    expect(scopesByOperation(document)).to.deep.equal({ 'GET /weatherforecast': [], 'GET /api/user/greet/{name}': [] });
  });
});
