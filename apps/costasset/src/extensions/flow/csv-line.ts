/** One RFC 4180 record: a field is quoted when it holds a comma, a quote or a line break. */
export function csvRecord(fields: string[]): string {
  return fields.map((field) => (/[",\r\n]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field)).join(',') + '\r\n';
}
