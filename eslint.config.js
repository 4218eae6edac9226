import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: ['**/node_modules/', 'data/', 'test-artifacts/', 'bench-results/', 'drills-results/', 'scratch/', 'dist/'],
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [eslint.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Adapters, fakes and migrations implement async ports (214 places): async turns a throw into a rejection.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Prettier wraps code at 120; what it cannot break (a long message, a test's title, a URL) may run over,
      // comments may not.
      'max-len': [
        'error',
        {
          code: 120,
          ignoreStrings: true,
          ignoreTemplateLiterals: true,
          ignoreRegExpLiterals: true,
          ignoreUrls: true,
        },
      ],
    },
  },
  {
    // Written by MikroORM's migrator (pnpm db:migration), which escapes every $ of a function's body: its text, kept.
    files: ['**/src/migrations/generated/*.ts'],
    rules: { 'no-useless-escape': 'off' },
  },
  {
    // Chai's property assertions (`.to.be.empty`, `.not.be.empty`) are expressions that assert when read.
    files: ['**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
);
