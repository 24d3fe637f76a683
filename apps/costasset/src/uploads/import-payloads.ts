/** Payload of a `JOB_TYPES.gpdImport` job: the GPD upload to import. */
export interface GpdImportPayload {
  refId: string;
}

/** Payload of a `JOB_TYPES.focusImport` job: the FOCUS upload to import. */
export interface FocusImportPayload {
  refId: string;
}

/** Payload of a `JOB_TYPES.focusImportPart` job: one part of a FOCUS upload, by its index in the upload's parts. */
export interface FocusImportPartPayload {
  refId: string;
  partIndex: number;
  /** The upload's rollup generation when its job handed out the parts (what their bumps start from). */
  generation: number;
}
