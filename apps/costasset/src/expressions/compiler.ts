import {
  ComparisonOperator,
  DIMENSION_NAME_RULE,
  EXPRESSION_FIELDS,
  Expression,
  ExpressionField,
  ExpressionNode,
  ValueNode,
  isDimensionName,
  isExpressionField,
  positionOf,
} from './ast';
import { ExpressionError } from './errors';
import { parse } from './parser';

export type ExpressionParams = Readonly<Record<string, string>>;

export type FieldCondition = { $eq: string } | { $ne: string };
/** One single-key object per whitelisted field, e.g. `{ region: { $eq: 'eu-west-1' } }`. */
export type FieldFilter = { [F in ExpressionField]: { [K in F]: FieldCondition } }[ExpressionField];
export type TagElementMatch = { group: { $eq: string }; key: { $eq: string }; value: { $eq: string } };
export type TagFilter = { tags: { $elemMatch: TagElementMatch } };
/** The document field holding the virtual (allocation) dimensions of a line item, one value per name. */
export const DIMENSIONS_FIELD = 'dimensions';
export type DimensionPath = `${typeof DIMENSIONS_FIELD}.${string}`;
/** One single-key object, e.g. `{ 'dimensions.team': { $eq: 'finops' } }`. */
export type DimensionFilter = { [P in DimensionPath]: FieldCondition };
/** `true` compiles to the empty filter (matches every line item), `false` to `{ $nor: [{}] }` (matches none). */
export type MatchAll = Record<string, never>;
export type ExpressionFilter =
  | FieldFilter
  | TagFilter
  | DimensionFilter
  | MatchAll
  | { $and: ExpressionFilter[] }
  | { $or: ExpressionFilter[] }
  | { $nor: ExpressionFilter[] };

export const MAX_PARAM_BYTES = 1024;

/**
 * Compiles a tree into a MongoDB filter over cost line items. Values only ever appear as the operand
 * of `$eq` / `$ne`, and placeholders are replaced by their parameter as one literal string, so no
 * value can turn into an operator or into expression syntax.
 */
export function compileToFilter(expression: Expression, params: ExpressionParams = {}): ExpressionFilter {
  if (params === null || typeof params !== 'object') throw new ExpressionError('expected the parameters to be an object of strings', 0);
  return compileNode(expression, params);
}

export function compileExpression(text: string, params: ExpressionParams = {}): ExpressionFilter {
  return compileToFilter(parse(text), params);
}

/** The placeholder names a tree uses, each once, in order of first appearance. */
export function parameterNames(expression: Expression): string[] {
  const names = new Set<string>();
  const visit = (node: Expression): void => {
    switch (node.kind) {
      case 'and':
      case 'or':
        node.operands.forEach(visit);
        return;
      case 'not':
        visit(node.operand);
        return;
      case 'compare':
      case 'tag':
      case 'dimension':
        if (node.value.kind === 'param') names.add(node.value.name);
        return;
      case 'constant':
    }
  };
  visit(expression);
  return [...names];
}

/**
 * The path of a dimension in a line item, `dimensions.<name>`. Throws on a name that is not a
 * dimension name (a lower-case slug), so that no `.` or `$` ever gets into the path.
 */
export function dimensionField(name: string): DimensionPath {
  if (!isDimensionName(name)) throw new Error(`invalid dimension name ${JSON.stringify(name)}: a dimension name is ${DIMENSION_NAME_RULE}`);
  return `${DIMENSIONS_FIELD}.${name}`;
}

/**
 * The dimension names a compiled filter reads (its `dimensions.<name>` keys, through `$and`, `$or`
 * and `$nor`), each once, in order of first appearance. The names are not checked: a caller refusing
 * unknown dimensions refuses a malformed one too.
 */
export function dimensionsRead(filter: unknown): Set<string> {
  const prefix = `${DIMENSIONS_FIELD}.`;
  const names = new Set<string>();
  for (const field of filterFields(filter)) if (field.startsWith(prefix)) names.add(field.slice(prefix.length));
  return names;
}

/**
 * The fields a MongoDB filter reads: every key that is not an operator, at any depth of
 * `$and`/`$or`/`$nor`/`$not`. A field condition's operand is not descended into, so
 * `{ tags: { $elemMatch: … } }` reads `tags`, and a dimension reads `dimensions.<name>`.
 */
export function filterFields(filter: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(filter)) {
    filter.forEach((entry) => filterFields(entry, into));
  } else if (isObject(filter)) {
    for (const [key, value] of Object.entries(filter)) {
      if (key.startsWith('$')) filterFields(value, into);
      else into.add(key);
    }
  }
  return into;
}

/**
 * ANDs filters together, leaving out missing and empty (`{}`) ones; one filter is returned as it is,
 * none gives `{}`, which matches everything.
 */
export function combineFilters(...filters: ReadonlyArray<Readonly<Record<string, unknown>> | null | undefined>): Record<string, unknown> {
  const present = filters.filter((filter): filter is Record<string, unknown> => filter != null && Object.keys(filter).length > 0);
  if (present.length === 0) return {};
  if (present.length === 1) return present[0];
  return { $and: present };
}

// The checks below repeat what the types promise because trees may also come from stored JSON.
function compileNode(node: Expression, params: ExpressionParams): ExpressionFilter {
  if (!isObject(node)) throw new ExpressionError(`expected an expression node, found ${describeType(node)}`, 0);
  switch (node.kind) {
    case 'and':
      return { $and: compileOperands(node, node.operands, params) };
    case 'or':
      return { $or: compileOperands(node, node.operands, params) };
    case 'not':
      return { $nor: [compileNode(node.operand, params)] };
    case 'constant':
      if (typeof node.value !== 'boolean') throw new ExpressionError('expected the constant to be true or false', positionOf(node) ?? 0);
      return node.value ? {} : { $nor: [{}] };
    case 'compare':
      return compileComparison(node.field, node.op, resolveValue(node.value, params), node);
    case 'tag': {
      const match: TagFilter = {
        tags: {
          $elemMatch: {
            group: { $eq: requireString(node.group, 'tag group', node) },
            key: { $eq: requireString(node.key, 'tag key', node) },
            value: { $eq: resolveValue(node.value, params) },
          },
        },
      };
      return checkOperator(node.op, node) === '==' ? match : { $nor: [match] };
    }
    case 'dimension': {
      if (!isDimensionName(node.name)) {
        const found = typeof node.name === 'string' ? JSON.stringify(node.name) : describeType(node.name);
        throw new ExpressionError(`invalid dimension name ${found}: a dimension name is ${DIMENSION_NAME_RULE}`, positionOf(node) ?? 0);
      }
      const value = resolveValue(node.value, params);
      const condition: FieldCondition = checkOperator(node.op, node) === '==' ? { $eq: value } : { $ne: value };
      return { [dimensionField(node.name)]: condition } as DimensionFilter;
    }
    default:
      throw new ExpressionError(`unknown expression node ${JSON.stringify((node as { kind?: unknown }).kind)}`, positionOf(node) ?? 0);
  }
}

function compileOperands(node: Expression, operands: readonly Expression[], params: ExpressionParams): ExpressionFilter[] {
  if (!Array.isArray(operands) || operands.length < 2) {
    throw new ExpressionError(`'${node.kind}' needs at least two operands`, positionOf(node) ?? 0);
  }
  return operands.map((operand) => compileNode(operand, params));
}

function compileComparison(field: string, op: ComparisonOperator, value: string, node: Expression): FieldFilter {
  if (!isExpressionField(field)) {
    throw new ExpressionError(
      `unknown field ${JSON.stringify(field)}: expected one of ${EXPRESSION_FIELDS.join(', ')}`,
      positionOf(node) ?? 0,
    );
  }
  const condition: FieldCondition = checkOperator(op, node) === '==' ? { $eq: value } : { $ne: value };
  return { [field]: condition } as FieldFilter;
}

function checkOperator(op: string, node: Expression): ComparisonOperator {
  if (op !== '==' && op !== '!=') {
    throw new ExpressionError(`unknown operator ${JSON.stringify(op)}: expected '==' or '!='`, positionOf(node) ?? 0);
  }
  return op;
}

function resolveValue(value: ValueNode, params: ExpressionParams): string {
  if (!isObject(value)) throw new ExpressionError(`expected a literal or a placeholder value, found ${describeType(value)}`, 0);
  const position = positionOf(value) ?? 0;
  if (value.kind === 'literal') return requireString(value.value, 'value', value);
  if (value.kind !== 'param') throw new ExpressionError('expected a literal or a placeholder value', position);
  const { name } = value;
  if (!Object.prototype.hasOwnProperty.call(params, name)) {
    throw new ExpressionError(`missing parameter '${name}' for the placeholder \${${name}} at position ${position}`, position);
  }
  const parameter: unknown = params[name];
  if (typeof parameter !== 'string') {
    throw new ExpressionError(`parameter '${name}' at position ${position} must be a string, found ${describeType(parameter)}`, position);
  }
  const bytes = Buffer.byteLength(parameter, 'utf8');
  if (bytes > MAX_PARAM_BYTES) {
    throw new ExpressionError(
      `parameter '${name}' at position ${position} is too long: at most ${MAX_PARAM_BYTES} bytes (1 KiB) are allowed, found ${bytes} bytes`,
      position,
    );
  }
  return parameter;
}

function requireString(value: unknown, what: string, node: ExpressionNode): string {
  if (typeof value !== 'string') {
    throw new ExpressionError(`expected the ${what} to be a string, found ${describeType(value)}`, positionOf(node) ?? 0);
  }
  return value;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/**
 * The tag keys a filter compares (`tags: { $elemMatch: { group: { $eq }, key: { $eq } … } }`, the
 * compiler's shape); null when a condition on `tags` has another shape (then no rollup answers).
 */
export function tagKeysOf(filter: unknown, into: Array<{ group: string; key: string }> = []): Array<{ group: string; key: string }> | null {
  if (Array.isArray(filter)) {
    for (const entry of filter) if (!tagKeysOf(entry, into)) return null;
  } else if (filter && typeof filter === 'object') {
    for (const [key, value] of Object.entries(filter as Record<string, unknown>)) {
      if (key.startsWith('$')) {
        if (!tagKeysOf(value, into)) return null;
      } else if (key === 'tags') {
        const match = (value as { $elemMatch?: { group?: { $eq?: unknown }; key?: { $eq?: unknown } } } | null)?.$elemMatch;
        const group = match?.group?.$eq;
        const tagKey = match?.key?.$eq;
        if (typeof group !== 'string' || typeof tagKey !== 'string') return null;
        into.push({ group, key: tagKey });
      }
    }
  }
  return into;
}
