import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const source = join(import.meta.dirname, '..', 'src');
/** The shared kernel, and the stock domain where the meaning is shared (money, product identity). */
const ALLOWED = ['@platform/kernel', '@stock/domain'];

describe('the sales domain package', () => {
  it('depends on the kernel and the stock domain only', () => {
    const manifest = JSON.parse(readFileSync(join(source, '..', 'package.json'), 'utf8')) as { dependencies?: object; devDependencies?: object };
    expect(Object.keys(manifest.dependencies ?? {})).to.deep.equal(ALLOWED);
    expect(manifest.devDependencies ?? {}).to.deep.equal({});
  });

  it('imports nothing but its own modules, the kernel and the stock domain', () => {
    const files = readdirSync(source, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files).to.include('order.ts');
    for (const file of files) {
      const imports = [...readFileSync(join(source, file), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      expect(imports.filter((path) => !path.startsWith('.') && !ALLOWED.includes(path)), file).to.deep.equal([]);
    }
  });
});
