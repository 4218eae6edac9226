import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every workspace package under `root`, as pnpm-workspace.yaml globs them: folders with a package.json, sorted. */
export function workspacePackageFolders(root: string): string[] {
  const globs = [...readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8').matchAll(/^ {2}- (\S+)$/gm)].map(
    (m) => m[1]!,
  );
  return globs
    .flatMap((glob) =>
      glob.endsWith('/*')
        ? readdirSync(join(root, glob.slice(0, -2)), { withFileTypes: true })
            .filter((entry) => entry.isDirectory())
            .map((entry) => `${glob.slice(0, -2)}/${entry.name}`)
        : [glob],
    )
    .filter((folder) => existsSync(join(root, folder, 'package.json')))
    .sort();
}
