// typescript-eslint's recommended rules over the TypeScript sources; functions in builder/ stay short enough to read
// (max-lines-per-function 80, tests exempt). Formatting is prettier's business, not the linter's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'build/**',
      'edge/**',
      'infra/cdk.out/**',
      'test-output/**',
      'test-results/**',
      'clients/src/api.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // A leading underscore marks a binding kept on purpose (a caught error that is not needed, a field left out).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
      // The sanitizers match control characters on purpose: removing them from hostile text is their job.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['builder/**/*.{ts,tsx}'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Tests read parsed documents loosely and let the assertions check the shape.
    files: ['test/**/*.ts', 'infra/test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
