import { ProblemException } from '@lib/core';

export const ReportModelProblems = {
  notFound: (id: string) => new ProblemException(404, 'REPORT_MODEL_NOT_FOUND', `No report model "${id}"`),
  exists: (id: string) => new ProblemException(409, 'REPORT_MODEL_EXISTS', `A report model "${id}" already exists`),
  idMismatch: () => new ProblemException(400, 'REPORT_MODEL_ID_MISMATCH', 'The reportModelId query parameter differs from the path'),
  notOwner: () => new ProblemException(403, 'REPORT_MODEL_NOT_OWNED', 'Only its creator or a System Admin may change this report model'),
  badParams: (detail: string) => new ProblemException(400, 'INVALID_TEMPLATE_PARAMS', detail),
};
