import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const source = join(import.meta.dirname, '..', 'src');
/**
 * The shared kernels: the commerce value types (money, product ids, line
 * limits) and the platform's. Not the stock domain: sales shares stock's
 * value types through the kernel, never stock's model, rules or ports.
 */
const ALLOWED = ['@commerce/shared-kernel', '@platform/kernel'];

function sourceFiles(): { file: string; text: string }[] {
  return readdirSync(source, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((file) => ({ file, text: readFileSync(join(source, file), 'utf8') }));
}

describe('the sales domain package', () => {
  it('depends on the shared kernels only', () => {
    const manifest = JSON.parse(readFileSync(join(source, '..', 'package.json'), 'utf8')) as {
      dependencies?: object;
      devDependencies?: object;
    };
    expect(Object.keys(manifest.dependencies ?? {})).to.deep.equal(ALLOWED);
    expect(manifest.devDependencies ?? {}).to.deep.equal({});
  });

  it('imports nothing but its own modules and the shared kernels', () => {
    const files = sourceFiles();
    expect(files.map((f) => f.file)).to.include(join('orders', 'order.ts'));
    for (const { file, text } of files) {
      const imports = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      expect(
        imports.filter((path) => !path.startsWith('.') && !ALLOWED.includes(path)),
        file,
      ).to.deep.equal([]);
    }
  });
});
