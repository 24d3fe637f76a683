import { Type as ClassType } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsMongoId, IsOptional, Max, Min } from 'class-validator';
import type { Paged } from '@lib/core';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/**
 * Cursor pagination of every list (`limit`, `cursor` → `{ items, nextCursor }`). A cursor that is
 * not a `nextCursor` this API handed out is a 400, never a silent restart at the first page.
 */
export class PageQuery {
  /** Items per page */
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit?: number;

  /** The `nextCursor` of the previous page; omit for the first page */
  @IsOptional()
  @IsMongoId({ message: 'cursor must be a nextCursor value returned by this endpoint' })
  cursor?: string;
}

/** The response DTO of a page of `item`, for OpenAPI: `class JobPage extends PageOf(JobDto) {}`. */
export function PageOf<T>(item: ClassType<T>): ClassType<Paged<T>> {
  class Page implements Paged<T> {
    @ApiProperty({ type: [item] })
    items: T[];

    @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last page' })
    nextCursor: string | null;
  }
  Object.defineProperty(Page, 'name', { value: `${item.name}Page` });
  return Page;
}
