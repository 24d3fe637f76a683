import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, Matches, Min } from 'class-validator';
import { IsSafeText, PageQuery, RequiredNestedArray } from '@lib/http';
import { FOCUS_VERSIONS } from '../../../imports/map/focus-columns';

/** Any file name a provider gives its parts, without control characters or path separators. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what the name may not hold
const PART_NAME = /^[^\u0000-\u001f\u007f/\\]+$/u;

export class FocusPartRequest {
  /**
   * File name of the part as the provider wrote it; its ending gives the format: `.csv`, `.csv.gz` (or `.gz`), `.parquet`
   * @example "focus-2024-10-00001.snappy.parquet"
   */
  @IsSafeText(255)
  @Matches(PART_NAME, { message: 'name may not hold control characters, `/` or `\\`' })
  name: string;

  /**
   * Size of the file in bytes: its upload URL then takes a body of exactly that length, and the import refuses a stored file of another
   * size (400 `FOCUS_FILE_SIZE_MISMATCH`). Over FOCUS_MAX_FILE_BYTES: 413 `FOCUS_FILE_TOO_LARGE` at once.
   * @example 104857600
   */
  @IsOptional()
  @IsInt()
  @Min(0)
  sizeBytes?: number;
}

export class CreateFocusUploadRequest {
  /** Every file of the export (the manifest of parts): the import starts only once each one is in the store */
  @RequiredNestedArray(() => FocusPartRequest, { minItems: 1, maxItems: 10_000 })
  files: FocusPartRequest[];

  /**
   * A name for the upload in listings (e.g. the export and month)
   * @example "AWS CUR 2.0 FOCUS 2024-10"
   */
  @IsOptional()
  @IsSafeText(200)
  label?: string;

  /** The FOCUS version of the files; detected from the file metadata or the columns when absent */
  @ApiPropertyOptional({ enum: FOCUS_VERSIONS })
  @IsOptional()
  @IsIn(FOCUS_VERSIONS)
  focusVersion?: string;
}

export class FocusPartUrl {
  name: string;
  /** Pre-signed PUT URL into the object store; PUT the file bytes to it, no token needed */
  uploadUrl: string;
}

export class FocusUploadCreated {
  /** Also its GPDUploadRefId in GET /v1/gpd listings */
  @ApiProperty({ format: 'uuid' }) uploadId: string;
  files: FocusPartUrl[];
  /** When the URLs expire (GPD_UPLOAD_URL_TTL_SECONDS); a PUT must start before */
  @ApiProperty({ format: 'date-time' }) expiresAt: string;
  /** POST here once every file is PUT */
  @ApiProperty({ example: '/api/costasset/v1/focus/uploads/{uploadId}/import' })
  importPath: string;
}

export class ImportFocusRequest {
  /** `true` imports again an upload already imported, failed or superseded (its rows are replaced) */
  @IsOptional()
  @IsBoolean()
  again?: boolean;
}

export class FocusImportStarted {
  @ApiProperty({ format: 'uuid' }) uploadId: string;
  /** The `focus.import` job (GET /api/costasset/v1/jobs/{jobId}) */
  @ApiProperty({ format: 'uuid' }) jobId: string;
}

/** Newest uploads first. */
export class ListFocusUploadsQuery extends PageQuery {}
