/** Payload of a `JOB_TYPES.gpdImport` job: the GPD upload to import. */
export interface GpdImportPayload {
  refId: string;
}

/** Payload of a `JOB_TYPES.focusImport` job: the FOCUS upload to import. */
export interface FocusImportPayload {
  refId: string;
}
