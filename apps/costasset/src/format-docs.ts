/**
 * Links from the OpenAPI descriptions to the format pages of the repository's docs/ folder, which the
 * gateway serves at /docs/ (so they open from the Swagger UI behind the gateway).
 */
export const GPD_FORMAT_DOC =
  'File format (zip layout, provider_metadata.yml, every CSV column, a worked example): [docs/gpd-format.md](/docs/gpd-format.md).';

export const EXTENSION_FORMAT_DOC =
  'Extension format (extension.json, JSONata mappings, the raw-data flow): [docs/extension-format.md](/docs/extension-format.md).';
