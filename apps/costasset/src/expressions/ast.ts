/** The fields of a cost line item an expression may compare. Anything else is refused. */
export const EXPRESSION_FIELDS = [
  'providerName',
  'billingAccountId',
  'billingAccountName',
  'assetAccountId',
  'category',
  'serviceName',
  'region',
  'period',
  'billingPeriod',
] as const;

export type ExpressionField = (typeof EXPRESSION_FIELDS)[number];

export type ComparisonOperator = '==' | '!=';

export type LiteralValue = { kind: 'literal'; value: string };
export type ParamValue = { kind: 'param'; name: string };
export type ValueNode = LiteralValue | ParamValue;

/** `and` and `or` always hold at least two operands; the parser never builds a one-operand node. */
export type AndNode = { kind: 'and'; operands: [Expression, Expression, ...Expression[]] };
export type OrNode = { kind: 'or'; operands: [Expression, Expression, ...Expression[]] };
export type NotNode = { kind: 'not'; operand: Expression };
export type CompareNode = { kind: 'compare'; field: ExpressionField; op: ComparisonOperator; value: ValueNode };
export type TagNode = { kind: 'tag'; group: string; key: string; op: ComparisonOperator; value: ValueNode };
/**
 * `dimension('<name>') == '<value>'`: compares a virtual (allocation) dimension of the line item, a
 * value computed elsewhere from ordered rules and stored under `dimensions.<name>`.
 */
export type DimensionNode = { kind: 'dimension'; name: string; op: ComparisonOperator; value: ValueNode };
/** `true` (every line item) or `false` (none). */
export type ConstantNode = { kind: 'constant'; value: boolean };

export type Expression = AndNode | OrNode | NotNode | CompareNode | TagNode | DimensionNode | ConstantNode;

export type ExpressionNode = Expression | ValueNode;

export function isExpressionField(name: string): name is ExpressionField {
  return (EXPRESSION_FIELDS as readonly string[]).includes(name);
}

/**
 * A dimension name: a lower-case slug of 1 to 63 characters. It becomes part of a document path
 * (`dimensions.<name>`), so it can hold no `.` or `$`.
 */
export const DIMENSION_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** {@link DIMENSION_NAME_PATTERN} in words, for error messages. */
export const DIMENSION_NAME_RULE = `1 to 63 lower-case letters, digits, '_' or '-', starting with a letter or digit`;

export function isDimensionName(name: unknown): name is string {
  return typeof name === 'string' && DIMENSION_NAME_PATTERN.test(name);
}

/**
 * Where in the source text the parser found each node. Kept beside the tree rather than in it so
 * that trees stay plain data: `parse(print(tree))` deep-equals `tree`, and two parses of differently
 * spaced texts give equal trees. Trees built by hand (or cloned) have no recorded positions.
 */
const sourcePositions = new WeakMap<ExpressionNode, number>();

export function recordPosition<T extends ExpressionNode>(node: T, position: number): T {
  sourcePositions.set(node, position);
  return node;
}

export function positionOf(node: ExpressionNode): number | undefined {
  return sourcePositions.get(node);
}
