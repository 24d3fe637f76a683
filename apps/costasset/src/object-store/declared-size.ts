import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/**
 * The optional `sizeBytes` query parameter of a request for an upload URL: the URL then takes a
 * body of exactly that length, and the request that reads the file refuses a stored object of
 * another size (`mismatchCode`). Over `limitName` it is refused at once (`tooLargeCode`).
 */
export function DeclaredSizeQuery(limitName: string, tooLargeCode: string, mismatchCode: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: Number,
      minimum: 0,
      description:
        `Size of the file in bytes. The upload URL then accepts a body of exactly this length only (a signed \`content-length\`), ` +
        `and the file is refused before it is read when the stored object has another size (400 \`${mismatchCode}\`). ` +
        `Over ${limitName}: 413 \`${tooLargeCode}\` at once. Without it, any length up to the limit is accepted.`,
      example: 1048576,
    }),
    IsOptional(),
    Type(() => Number),
    IsInt(),
    Min(0),
    Max(Number.MAX_SAFE_INTEGER),
  );
}
