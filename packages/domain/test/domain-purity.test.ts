import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const source = join(import.meta.dirname, '..', 'src');

describe('the domain package', () => {
  it('has no runtime dependency', () => {
    const manifest = JSON.parse(readFileSync(join(source, '..', 'package.json'), 'utf8')) as { dependencies?: object };
    expect(manifest.dependencies ?? {}).to.deep.equal({});
  });

  it('imports nothing but its own modules', () => {
    const files = readdirSync(source, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files).to.include('product.ts');
    for (const file of files) {
      const imports = [...readFileSync(join(source, file), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]);
      expect(imports.filter((path) => !path!.startsWith('.')), file).to.deep.equal([]);
    }
  });
});
