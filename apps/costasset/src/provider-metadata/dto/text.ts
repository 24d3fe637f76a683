import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsOptional } from 'class-validator';
import { IsSafeText } from '@lib/http';

export const MAX_NAME_LENGTH = 128;
export const MAX_TEXT_LENGTH = 256;
export const MAX_URL_LENGTH = 2048;

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
/** An optional value that is blank after trimming counts as absent (`?assetType=` lists all: docs/interface.md#provider-metadata). */
const trimToUndefined = ({ value }: { value: unknown }) => {
  const trimmed = trim({ value });
  return trimmed === '' ? undefined : trimmed;
};

/** A required string, trimmed, non-empty safe text of at most `max` characters. */
export const RequiredText = (max: number) => applyDecorators(Transform(trim), IsSafeText(max));

/** An optional string, trimmed (blank = absent), safe text of at most `max` characters. */
export const OptionalText = (max: number) => applyDecorators(Transform(trimToUndefined), IsOptional(), IsSafeText(max));
