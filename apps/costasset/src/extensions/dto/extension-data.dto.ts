import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { IsSafeText, RequiredNestedArray } from '@lib/http';

export class StoredFile {
  /**
   * Key relative to the tenant prefix
   * @example "raw/acme/expanded/usage-202410.csv"
   */
  key: string;
  /**
   * Size in bytes, as a string
   * @example "1024"
   */
  Size: string;
  @ApiProperty({ format: 'date-time' }) lastModified: string;
}

export class DataItem {
  /** Key as listed by /data/list */
  @IsSafeText(1024)
  key: string;

  /** Size as listed (informational) */
  @IsOptional()
  @IsString()
  @Matches(/^\d{1,20}$/)
  Size?: string;
}

export class DeleteDataRequest {
  @ApiProperty({ type: [DataItem], minItems: 1, maxItems: 1000 })
  @RequiredNestedArray(() => DataItem, { minItems: 1, maxItems: 1000 })
  items: DataItem[];
}

export class DataDeleted {
  /**
   *
   * @example "deleted"
   */
  @ApiProperty({ type: String }) status: 'deleted';
  /** Objects that existed and were removed */
  count: number;
}

export class DownloadQuery {
  /** Key as listed by /data/list */
  @IsSafeText(1024)
  key: string;
}
