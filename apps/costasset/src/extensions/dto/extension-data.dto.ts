import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { IsSafeText, RequiredNestedArray } from '@lib/http';

export class StoredFile {
  @ApiProperty({ type: String, description: 'Key relative to the tenant prefix', example: 'raw/acme/expanded/usage-202410.csv' })
  key: string;
  @ApiProperty({ type: String, description: 'Size in bytes, as a string (§2.6)', example: '1024' }) Size: string;
  @ApiProperty({ type: String, format: 'date-time' }) lastModified: string;
}

export class DataItem {
  @ApiProperty({ type: String, description: 'Key as listed by /data/list' })
  @IsSafeText(1024)
  key: string;

  @ApiPropertyOptional({ type: String, description: 'Size as listed (informational)' })
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
  @ApiProperty({ type: String, example: 'deleted' }) status: 'deleted';
  @ApiProperty({ type: Number, description: 'Objects that existed and were removed' }) count: number;
}

export class DownloadQuery {
  @ApiProperty({ type: String, description: 'Key as listed by /data/list' })
  @IsSafeText(1024)
  key: string;
}
