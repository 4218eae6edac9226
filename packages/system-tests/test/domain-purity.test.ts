import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..', '..');
/**
 * The shared kernels are the packages a domain may import: the commerce value types (money, product ids, line limits)
 * and the platform's. Sales shares stock's value types through the kernel, never stock's model, rules or ports.
 */
const ALLOWED = ['@commerce/shared-kernel', '@platform/kernel'];

/** Each domain package, and one file it must hold (so an emptied or moved src/ cannot pass by having nothing). */
const DOMAINS = [
  { folder: 'packages/stock/domain', holds: join('products', 'product.ts') },
  { folder: 'packages/sales/domain', holds: join('orders', 'order.ts') },
];

for (const { folder, holds } of DOMAINS) {
  const source = join(ROOT, folder, 'src');
  describe(`the domain package ${folder}`, () => {
    it('depends on the shared kernels only', () => {
      const manifest = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as {
        dependencies?: object;
        devDependencies?: object;
      };
      expect(Object.keys(manifest.dependencies ?? {})).to.deep.equal(ALLOWED);
      expect(manifest.devDependencies ?? {}).to.deep.equal({});
    });

    it('imports nothing but its own modules and the shared kernels', () => {
      const files = readdirSync(source, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
      expect(files).to.include(holds);
      for (const file of files) {
        const imports = [...readFileSync(join(source, file), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
        expect(
          imports.filter((path) => !path.startsWith('.') && !ALLOWED.includes(path)),
          file,
        ).to.deep.equal([]);
      }
    });
  });
}
