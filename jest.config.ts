/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

const swc: [string, Record<string, unknown>] = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  },
];

const moduleNameMapper = {
  '^@lib/(core|config|auth|messaging|persistence|http|platform|metrics|csv|tracing)$': '<rootDir>/libs/$1/src',
  '^@lib/(core|config|auth|messaging|persistence|http|platform|metrics|csv|tracing)/(.*)$': '<rootDir>/libs/$1/src/$2',
};

/** ESM-only packages (Parquet) that Jest's CommonJS runtime needs compiled; Node itself loads them with require(esm). */
const ESM_PACKAGES = ['hyparquet', 'hyparquet-writer', 'hyparquet-compressors', 'hysnappy'];

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc, [`/node_modules/(${ESM_PACKAGES.join('|')})/.+\\.js$`]: swc },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_PACKAGES.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
  setupFiles: ['reflect-metadata'],
};

/**
 * Two projects: `unit` needs nothing running; `e2e` drives the apps over HTTP against the
 * real stack that `npm test` (tools/test.ts) starts and stops around the run.
 */
const config: Config = {
  // A global option: Jest ignores it inside a project. e2e tests wait on jobs and NATS.
  testTimeout: 60_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/apps/**/*.e2e-spec.ts'],
      // the gateways test files leave behind (test/support/platform.ts starts one per platform)
      globalTeardown: '<rootDir>/test/support/stop-gateways.ts',
    },
  ],
};

export default config;
