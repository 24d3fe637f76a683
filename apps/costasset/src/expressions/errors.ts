/** A bad expression or a bad parameter for one; `position` is the 0-based offset in the expression text. */
export class ExpressionError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
    this.name = 'ExpressionError';
  }
}
