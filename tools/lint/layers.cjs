/**
 * The libraries' layers: which library may import which (docs/decisions.md, "Libraries and
 * their layers"). Every import of a library goes through its barrel, `@lib/<name>`; inside a
 * library its own files import each other relatively. Apps, tools, test and bench may import any
 * library; no library imports an app, a tool, a test or a bench. Read by eslint.config.mjs
 * (no-restricted-imports) and .dependency-cruiser.cjs (the same rule on resolved paths, and cycles).
 */
const LIBRARY_LAYERS = {
  // the ground floor: problems, the page type, the request context, the readiness contract, the public-route marker
  core: [],
  config: ['core'],
  metrics: ['core'],
  csv: ['core'],
  tracing: ['core', 'config'],
  auth: ['core', 'config', 'tracing'],
  http: ['core', 'config', 'metrics', 'tracing'],
  persistence: ['core', 'metrics'],
  messaging: ['core', 'auth', 'metrics', 'tracing'],
  // what every service stands on: the top
  platform: ['core', 'config', 'http', 'messaging', 'metrics', 'persistence'],
};

const LIBRARIES = Object.keys(LIBRARY_LAYERS);

/** The other libraries `name` must not import. */
const forbiddenFor = (name) => LIBRARIES.filter((other) => other !== name && !LIBRARY_LAYERS[name].includes(other));

module.exports = { LIBRARY_LAYERS, LIBRARIES, forbiddenFor };
