/**
 * Paths pino blanks out before a line is written. Tokens, cookies, passwords and API tokens
 * never reach a log, wherever they appear in a request or a logged object.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["corelite-token"]',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.apiToken',
  '*.refresh_token',
  '*.access_token',
  '*.secret',
  '*.token',
  '*.*.password',
  '*.*.apiToken',
  'configurationvalue.password',
];
