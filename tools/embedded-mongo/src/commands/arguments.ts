import { isPlainObject, toNumber, type Document } from '../bson-values';
import { commandError } from '../errors';
import { validateCollectionName } from '../storage';

/** The collection named by the command's first field (e.g. `{ find: "users" }`). */
export function collectionArgument(command: Document, commandName: string, db: string): string {
  const value = command[commandName];
  if (typeof value !== 'string') {
    throw commandError(
      'InvalidNamespace',
      `Failed to parse namespace element: collection name has invalid type ${value === null ? 'null' : typeof value}`,
    );
  }
  return validateCollectionName(db, value);
}

export function optionalDocument(command: Document, field: string, commandName: string): Document | undefined {
  const value = command[field];
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) {
    throw commandError('TypeMismatch', `BSON field '${commandName}.${field}' is the wrong type, expected type 'object'`);
  }
  return value;
}

export function optionalNonNegativeInt(command: Document, field: string, commandName: string): number | undefined {
  const value = command[field];
  if (value === undefined || value === null) return undefined;
  const n = toNumber(value);
  if (n === undefined || !Number.isFinite(n)) {
    throw commandError('TypeMismatch', `BSON field '${commandName}.${field}' is the wrong type, expected a number`);
  }
  if (n < 0) throw commandError('BadValue', `BSON field '${field}' value must be >= 0, actual value '${n}'`);
  return Math.trunc(n);
}

/** Rejects options this server does not implement instead of silently ignoring them. */
export function refuseOptions(command: Document, commandName: string, options: string[]): void {
  for (const option of options) {
    const value = command[option];
    if (value !== undefined && value !== null && value !== false) {
      throw commandError('NotImplemented', `embedded-mongo does not support the '${option}' option of ${commandName}`);
    }
  }
}
