/** A problem+json answer of the API (or a network failure), as the console shows it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly extra: {
      position?: number;
      errors?: { field: string; messages: string[] }[];
      title?: string;
      requestId?: string;
      /** The index of the offending rule of a list of rules (allocation dimensions' INVALID_EXPRESSION). */
      rule?: number;
    } = {},
  ) {
    // what to tell the user: the detail, and each invalid field (Error's constructor makes `message`
    // an own property, which a getter on the class would not override)
    super([detail, ...(extra.errors ?? []).map((error) => `${error.field}: ${error.messages.join(', ')}`)].join(' — '));
  }

  /** The offset of an INVALID_EXPRESSION error in the expression text. */
  get position(): number | undefined {
    return this.code === 'INVALID_EXPRESSION' && typeof this.extra.position === 'number' ? this.extra.position : undefined;
  }

  /** The index of the rule an INVALID_EXPRESSION is about, when the request held a list of rules. */
  get rule(): number | undefined {
    return this.code === 'INVALID_EXPRESSION' && typeof this.extra.rule === 'number' ? this.extra.rule : undefined;
  }

  /** The problem's `title` (the HTTP status in words), in plainer words for a refusal or a network failure. */
  get heading(): string {
    if (this.status === 0) return 'Connection problem';
    if (this.status === 403) return 'Not allowed';
    return this.extra.title ?? 'Something went wrong';
  }

  /** The id the API gave the request (in its logs and traces): what a report of the problem quotes. */
  get requestId(): string | undefined {
    return this.extra.requestId;
  }
}

/** The ApiError of an answer: its problem+json body, or its text; the request id from the body or the `x-request-id` header. */
export function problemOf(status: number, body: unknown, requestId?: string | null): ApiError {
  if (body && typeof body === 'object' && 'detail' in body) {
    const problem = body as {
      code?: string;
      detail?: string;
      title?: string;
      requestId?: string;
      position?: number;
      rule?: number;
      errors?: { field: string; messages: string[] }[];
    };
    return new ApiError(status, problem.code ?? `HTTP_${status}`, problem.detail ?? `The server answered ${status}`, {
      position: problem.position,
      rule: problem.rule,
      errors: problem.errors,
      title: problem.title,
      requestId: problem.requestId ?? requestId ?? undefined,
    });
  }
  return new ApiError(
    status,
    `HTTP_${status}`,
    typeof body === 'string' && body.length < 300 && body ? body : `The server answered ${status}`,
    { requestId: requestId ?? undefined },
  );
}
