import {
  openApiContract,
  operationsWithoutSecurity,
  scopesNamedIn,
  type SecurityDescription,
  undefinedSecuritySchemes,
} from '@platform/test-kit';
import { expect } from 'chai';
import { join } from 'node:path';
import { type ApiName, Apis, scopesOf } from '../src';

const DOCS = join(import.meta.dirname, '..', '..', '..', 'docs');

interface ApiDescription extends SecurityDescription {
  readonly info: { readonly description: string };
  readonly components: { readonly securitySchemes: Readonly<Record<string, { readonly description?: string }>> };
}

const DESCRIPTIONS: Record<ApiName, string> = { stock: 'openapi.yaml', sales: 'sales.openapi.yaml' };

for (const [api, file] of Object.entries(DESCRIPTIONS) as [ApiName, string][]) {
  describe(`docs/${file}'s security, against the contract`, () => {
    const document = openApiContract(join(DOCS, file)).document as unknown as ApiDescription;
    const { audience } = Apis[api];

    it(`names exactly the ${api} API's scopes, only schemes it defines, and the security of every operation`, () => {
      expect(scopesNamedIn(document)).to.deep.equal([...scopesOf(api)].sort());
      expect(undefinedSecuritySchemes(document)).to.deep.equal([]);
      expect(operationsWithoutSecurity(document)).to.deep.equal([]);
    });

    it(`names the audience ${audience} in its scheme, and the audience and every scope in its overview`, () => {
      const schemes = Object.values(document.components.securitySchemes);
      expect(schemes).to.have.length.greaterThan(0);
      for (const scheme of schemes) expect(scheme.description).to.include(audience);
      for (const term of [audience, ...scopesOf(api)]) {
        expect(document.info.description, term).to.include(`\`${term}\``);
      }
    });
  });
}
