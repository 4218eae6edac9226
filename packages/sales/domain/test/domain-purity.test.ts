import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const source = join(import.meta.dirname, '..', 'src');
/** The shared kernel, and the stock domain where the meaning is shared (money, product identity). */
const ALLOWED = ['@platform/kernel', '@stock/domain'];
/**
 * What the sales domain may take from the stock domain: the value types an
 * order line shares with stock's products. Not stock's model, rules or ports.
 */
const SHARED_FROM_STOCK = ['INT32_MAX', 'isProductId', 'Money'];

function sourceFiles(): { file: string; text: string }[] {
  return readdirSync(source, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((file) => ({ file, text: readFileSync(join(source, file), 'utf8') }));
}

describe('the sales domain package', () => {
  it('depends on the kernel and the stock domain only', () => {
    const manifest = JSON.parse(readFileSync(join(source, '..', 'package.json'), 'utf8')) as { dependencies?: object; devDependencies?: object };
    expect(Object.keys(manifest.dependencies ?? {})).to.deep.equal(ALLOWED);
    expect(manifest.devDependencies ?? {}).to.deep.equal({});
  });

  it('imports nothing but its own modules, the kernel and the stock domain', () => {
    const files = sourceFiles();
    expect(files.map((f) => f.file)).to.include('order.ts');
    for (const { file, text } of files) {
      const imports = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      expect(imports.filter((path) => !path.startsWith('.') && !ALLOWED.includes(path)), file).to.deep.equal([]);
    }
  });

  it('takes only the shared value types from the stock domain, each by name', () => {
    let taken: string[] = [];
    for (const { file, text } of sourceFiles()) {
      const fromStock = [...text.matchAll(/import\s+([^;]*?)\s+from '@stock\/domain'/g)].map((m) => m[1]!);
      for (const clause of fromStock) {
        // Named imports only: `import * as stock` or a default import would let anything through.
        const named = /^(?:type\s+)?\{([^}]*)\}$/.exec(clause.trim());
        expect(named, `${file}: import ${clause} from '@stock/domain'`).to.not.equal(null);
        taken = [...taken, ...named![1]!.split(',').map((name) => name.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]!).filter(Boolean)];
      }
    }
    expect(taken).to.not.be.empty;
    expect([...new Set(taken)].filter((name) => !SHARED_FROM_STOCK.includes(name)), 'taken from @stock/domain beyond its shared value types').to.deep.equal([]);
  });
});
