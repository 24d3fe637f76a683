import { ReportModelProblems } from './report-model.problems';

const MAX_PARAMS = 50;

/** `templateParams` is a JSON object of strings (docs/expressions.md#placeholders-report-models); anything else is a 400. */
export function parseTemplateParams(raw: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw ReportModelProblems.badParams('templateParams must be a URL-encoded JSON object, e.g. {"period":"202410"}');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw ReportModelProblems.badParams('templateParams must be a JSON object');
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.length > MAX_PARAMS) throw ReportModelProblems.badParams(`templateParams holds more than ${MAX_PARAMS} entries`);
  for (const [name, value] of entries) {
    if (typeof value !== 'string') throw ReportModelProblems.badParams(`templateParams.${name} must be a string`);
  }
  return Object.fromEntries(entries) as Record<string, string>;
}
