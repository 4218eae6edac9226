import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const source = join(import.meta.dirname, '..', 'src');
/** The shared kernel is the one package a domain may import. */
const ALLOWED = ['@platform/kernel'];

describe('the stock domain package', () => {
  it('depends on the shared kernel only', () => {
    const manifest = JSON.parse(readFileSync(join(source, '..', 'package.json'), 'utf8')) as { dependencies?: object; devDependencies?: object };
    expect(Object.keys(manifest.dependencies ?? {})).to.deep.equal(ALLOWED);
    expect(manifest.devDependencies ?? {}).to.deep.equal({});
  });

  it('imports nothing but its own modules and the kernel', () => {
    const files = readdirSync(source, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files).to.include('product.ts');
    for (const file of files) {
      const imports = [...readFileSync(join(source, file), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      expect(imports.filter((path) => !path.startsWith('.') && !ALLOWED.includes(path)), file).to.deep.equal([]);
    }
  });
});
