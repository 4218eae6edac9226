import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

/** Every package outside this one that a source file imports, with the file. */
function foreignImports(): string[] {
  const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  return files.flatMap((file) =>
    [...readFileSync(join(root, 'src', file), 'utf8').matchAll(/from '([^.'][^']*)'/g)].map((m) => `${file}: ${m[1]!}`),
  );
}

describe('the shared kernel package', () => {
  it('depends on the platform kernel only, so both domains may import it and it imports neither', () => {
    type Manifest = { dependencies?: object; devDependencies?: object };
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
    expect(Object.keys(manifest.dependencies ?? {})).to.deep.equal(['@platform/kernel']);
    expect(manifest.devDependencies ?? {}).to.deep.equal({});
  });

  it('imports nothing but its own modules and the platform kernel', () => {
    const foreign = foreignImports();
    expect(foreign, 'money.ts imports the kernel: the scan must see it').to.include('money.ts: @platform/kernel');
    expect(foreign.filter((line) => !line.endsWith(': @platform/kernel'))).to.deep.equal([]);
  });
});
