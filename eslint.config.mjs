import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.stack/**', '.dev-keys/**', 'apps/console/src/api/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', __dirname: 'readonly', Buffer: 'readonly', console: 'readonly' } },
    rules: {
      // Environment classes spell out `: number = 3000`: the type annotation is what emits the
      // decorator metadata that class-transformer converts environment strings with.
      '@typescript-eslint/no-inferrable-types': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-namespace': 'off',
    },
  },
  {
    // Plain CommonJS scripts (tools/bootstrap.js runs before any npm package is installed).
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The web console runs in the browser.
    files: ['apps/console/**/*.{ts,tsx,mts}'],
    languageOptions: {
      globals: {
        window: 'readonly', document: 'readonly', location: 'readonly', history: 'readonly', navigator: 'readonly', sessionStorage: 'readonly',
        fetch: 'readonly', URL: 'readonly', URLSearchParams: 'readonly', XMLHttpRequest: 'readonly', atob: 'readonly', performance: 'readonly',
        ResizeObserver: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', File: 'readonly', Blob: 'readonly',
      },
    },
  },
);
