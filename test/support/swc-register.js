// Runs the TypeScript services in a child process for tests that kill them: compiles .ts with
// @swc/core (keeping decorator metadata, which Nest's DI needs) and resolves the @lib/* aliases.
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const root = path.join(__dirname, '..', '..');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = /^@lib\/([a-z]+)(\/.*)?$/.exec(request);
  if (alias) request = path.join(root, 'libs', alias[1], 'src', alias[2] ?? '');
  return resolve.call(this, request, ...rest);
};

require.extensions['.ts'] = function (module, filename) {
  const source = require('node:fs').readFileSync(filename, 'utf8');
  const { code } = transformSync(source, {
    filename,
    sourceMaps: 'inline',
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
require('reflect-metadata');
