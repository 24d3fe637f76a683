import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';

/** A received message that does not match its subject's class. */
export class InvalidPayloadError extends Error {
  override readonly name = 'InvalidPayloadError';
}

const describe = (errors: ValidationError[], parent = ''): string[] =>
  errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    return [...Object.values(error.constraints ?? {}).map((message) => `${field}: ${message}`), ...describe(error.children ?? [], field)];
  });

const decoder = new TextDecoder();

/** Decodes a message body (JSON) and validates it against `type`. Throws `InvalidPayloadError`. */
export function decodePayload<T extends object>(type: new () => T, data: Uint8Array): T {
  let decoded: unknown;
  try {
    decoded = JSON.parse(decoder.decode(data));
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new InvalidPayloadError('the payload is not JSON');
  }
  return validPayload(type, decoded);
}

/**
 * The decoded payload as an instance of `type`, validated (unknown fields dropped, so that a
 * newer sender's additions do not break an older receiver). Throws `InvalidPayloadError`.
 */
export function validPayload<T extends object>(type: new () => T, decoded: unknown): T {
  if (decoded === null || typeof decoded !== 'object' || Array.isArray(decoded))
    throw new InvalidPayloadError('the payload is not a JSON object');
  const payload = plainToInstance(type, decoded);
  const errors = validateSync(payload, { whitelist: true, forbidUnknownValues: true, validationError: { target: false, value: false } });
  if (errors.length > 0) throw new InvalidPayloadError(describe(errors).slice(0, 10).join('; '));
  return payload;
}
