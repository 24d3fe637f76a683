import { Expression, ValueNode } from './ast';

/**
 * Prints a tree as canonical expression text: single quotes, one space around operators, and
 * parentheses exactly where the tree's shape needs them, so that `parse(print(tree))` deep-equals
 * `tree`.
 */
export function print(expression: Expression): string {
  switch (expression.kind) {
    case 'constant':
      return String(expression.value);
    case 'compare':
      return `${expression.field} ${expression.op} ${printValue(expression.value)}`;
    case 'tag':
      return `tag(${quote(expression.group)}, ${quote(expression.key)} ${expression.op} ${printValue(expression.value)})`;
    case 'dimension':
      return `dimension(${quote(expression.name)}) ${expression.op} ${printValue(expression.value)}`;
    case 'and':
      // An `and` or `or` operand needs parentheses: without them it would merge into this node.
      return expression.operands
        .map((operand) => (operand.kind === 'and' || operand.kind === 'or' ? `(${print(operand)})` : print(operand)))
        .join(' && ');
    case 'or':
      return expression.operands.map((operand) => (operand.kind === 'or' ? `(${print(operand)})` : print(operand))).join(' || ');
    case 'not': {
      const { operand } = expression;
      // `!providerName == 'x'` would parse the same, but reads as if `!` applied to the field (and
      // `!dimension('team') == 'x'` as if it applied to the call).
      return operand.kind === 'not' || operand.kind === 'tag' || operand.kind === 'constant'
        ? `!${print(operand)}`
        : `!(${print(operand)})`;
    }
  }
}

export function printValue(value: ValueNode): string {
  return value.kind === 'param' ? `\${${value.name}}` : quote(value.value);
}

/** Quotes a literal; `${` is escaped so that the text is never read back as a quoted placeholder. */
export function quote(text: string): string {
  return `'${text.replace(/[\\']|\$(?=\{)/g, (character) => `\\${character}`)}'`;
}
