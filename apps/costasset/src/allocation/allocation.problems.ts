import { ProblemException } from '@lib/core';

export const AllocationProblems = {
  dimensionNotFound: (name: string) => new ProblemException(404, 'DIMENSION_NOT_FOUND', `No dimension named '${name}'`),
  dimensionExists: (name: string) => new ProblemException(409, 'DIMENSION_EXISTS', `A dimension named '${name}' exists already`),
  versionConflict: (name: string, current: number) =>
    new ProblemException(
      409,
      'DIMENSION_VERSION_CONFLICT',
      `Dimension '${name}' was saved since: its version is now ${current}`,
      undefined,
      {
        currentVersion: current,
      },
    ),
  tooMany: (what: string, limit: number) => new ProblemException(409, 'ALLOCATION_LIMIT', `At most ${limit} ${what} per tenant`),
  tagKeyNotActive: (group: string | null, key: string) =>
    new ProblemException(404, 'TAG_KEY_NOT_ACTIVE', `Tag key ${group === null ? key : `${group}:${key}`} is not activated`),
  tagKeyActive: (group: string | null, key: string) =>
    new ProblemException(409, 'TAG_KEY_ACTIVE', `Tag key ${group === null ? key : `${group}:${key}`} is activated already`),
  busy: () => new ProblemException(409, 'ALLOCATION_CHANGED', 'The allocation settings kept changing under this request: try again'),
  invalidSplit: (field: string, detail: string) =>
    new ProblemException(400, 'INVALID_SPLIT_RULE', `${field}: ${detail}`, [{ field, messages: [detail] }]),
  filterNotAllocatable: () =>
    new ProblemException(
      400,
      'ALLOCATED_COST_FILTER',
      'Allocated cost can be read by rolled-up fields, activated tag keys and dimensions only ' +
        '(the filter or a visibility group reads another)',
    ),
  inUse: (detail: string) => new ProblemException(409, 'ALLOCATION_IN_USE', `A split rule depends on it: ${detail}`),
  notAllocationDimension: (text: string) =>
    new ProblemException(400, 'UNKNOWN_DIMENSION', `${text} is not a dimension or an activated tag key of one group`),
  invalidProvider: (field: string, detail: string) =>
    new ProblemException(400, 'INVALID_PROVIDER', `${field}: ${detail}`, [{ field, messages: [detail] }]),
  splitCycle: (detail: string) => new ProblemException(400, 'SPLIT_RULE_CYCLE', detail),
  invalidRule: (index: number, detail: string, position?: number) =>
    new ProblemException(
      400,
      'INVALID_EXPRESSION',
      `rules[${index}].expr: ${detail}`,
      [{ field: `rules.${index}.expr`, messages: [detail] }],
      {
        rule: index,
        ...(position === undefined ? {} : { position }),
      },
    ),
};
