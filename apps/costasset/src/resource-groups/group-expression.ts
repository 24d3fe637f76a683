import { compileToFilter, Expression, ExpressionError, parameterNames, parse, toProblem } from '../expressions';
import { ResourceGroupProblems } from './resource-group.problems';

/** Parses a group expression, refusing placeholders: a group's slice must not depend on the caller. */
export function parseGroupExpression(text: string): Expression {
  let tree: Expression;
  try {
    tree = parse(text);
  } catch (error) {
    if (error instanceof ExpressionError) throw toProblem(error);
    throw error;
  }
  if (parameterNames(tree).length > 0) throw ResourceGroupProblems.placeholders();
  return tree;
}

export function groupFilter(text: string): Record<string, unknown> {
  return compileToFilter(parseGroupExpression(text)) as Record<string, unknown>;
}
