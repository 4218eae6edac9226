import { expect } from 'chai';
import { type ApiName, Apis, Scopes, scopesOf } from '../src';

const API_NAMES = Object.keys(Apis) as ApiName[];

describe('the security contract', () => {
  it('gives each API an audience of its own', () => {
    const audiences = API_NAMES.map((api) => Apis[api].audience);
    expect(new Set(audiences).size).to.equal(audiences.length);
  });

  it('puts every scope in exactly one API, so the issuer can tell the API from the scopes a client asks for', () => {
    const owners = (scope: string) => API_NAMES.filter((api) => (scopesOf(api) as readonly string[]).includes(scope));
    for (const scope of API_NAMES.flatMap((api) => scopesOf(api))) expect(owners(scope), scope).to.have.lengthOf(1);
  });

  it('describes exactly the scopes it names for each API', () => {
    for (const api of API_NAMES) expect(scopesOf(api), api).to.have.members(Object.values(Scopes[api]));
  });
});
