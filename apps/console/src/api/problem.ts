/** A problem+json answer of the API (or a network failure), as the console shows it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly extra: { position?: number; errors?: { field: string; messages: string[] }[] } = {},
  ) {
    super(detail);
  }

  /** The offset of an INVALID_EXPRESSION error in the expression text. */
  get position(): number | undefined {
    return this.code === 'INVALID_EXPRESSION' && typeof this.extra.position === 'number' ? this.extra.position : undefined;
  }

  /** What to tell the user: the problem's detail, and each invalid field. */
  get message(): string {
    const fields = (this.extra.errors ?? []).map((error) => `${error.field}: ${error.messages.join(', ')}`);
    return [this.detail, ...fields].join(' — ');
  }
}

export function problemOf(status: number, body: unknown): ApiError {
  if (body && typeof body === 'object' && 'detail' in body) {
    const problem = body as { code?: string; detail?: string; position?: number; errors?: { field: string; messages: string[] }[] };
    return new ApiError(status, problem.code ?? `HTTP_${status}`, problem.detail ?? `The server answered ${status}`, { position: problem.position, errors: problem.errors });
  }
  return new ApiError(status, `HTTP_${status}`, typeof body === 'string' && body.length < 300 && body ? body : `The server answered ${status}`);
}
