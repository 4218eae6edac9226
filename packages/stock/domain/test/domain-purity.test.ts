import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const source = join(import.meta.dirname, '..', 'src');
/** The shared kernels are the packages a domain may import: the commerce value types and the platform's. */
const ALLOWED = ['@commerce/shared-kernel', '@platform/kernel'];

describe('the stock domain package', () => {
  it('depends on the shared kernels only', () => {
    const manifest = JSON.parse(readFileSync(join(source, '..', 'package.json'), 'utf8')) as {
      dependencies?: object;
      devDependencies?: object;
    };
    expect(Object.keys(manifest.dependencies ?? {})).to.deep.equal(ALLOWED);
    expect(manifest.devDependencies ?? {}).to.deep.equal({});
  });

  it('imports nothing but its own modules and the kernels', () => {
    const files = readdirSync(source, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files).to.include('products/product.ts');
    for (const file of files) {
      const imports = [...readFileSync(join(source, file), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      expect(
        imports.filter((path) => !path.startsWith('.') && !ALLOWED.includes(path)),
        file,
      ).to.deep.equal([]);
    }
  });
});
