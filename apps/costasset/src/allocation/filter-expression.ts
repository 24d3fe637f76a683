/**
 * A filter of the shape the expression compiler emits (`$and`, `$or`, `$nor`, `{ field: { $eq | $ne } }`,
 * `{ tags: { $elemMatch } }`, `{}`) as an aggregation expression that is true for exactly the
 * documents the filter matches: what a `$switch` of dimension rules needs inside `$group`/`$addFields`.
 * Fields are strings or missing, so `$eq`/`$ne` of the aggregation agree with those of the query
 * language (a missing field equals no string). Values are `$literal`: a value never becomes a path.
 */
export function filterToExpression(filter: Readonly<Record<string, unknown>>, element?: string): unknown {
  const terms = Object.entries(filter).map(([key, value]) => entryExpression(key, value, element));
  if (terms.length === 0) return true;
  return terms.length === 1 ? terms[0] : { $and: terms };
}

function entryExpression(key: string, value: unknown, element: string | undefined): unknown {
  const operands = () => (value as Record<string, unknown>[]).map((operand) => filterToExpression(operand, element));
  if (key === '$and') return { $and: operands() };
  if (key === '$or') return { $or: operands() };
  if (key === '$nor') return { $not: [{ $or: operands() }] };
  if (key.startsWith('$') || key.includes('.')) throw new Error(`a dimension rule cannot read ${key}`);
  const path = element ? `$$${element}.${key}` : `$${key}`;
  return conditionExpression(path, value as Record<string, unknown>);
}

function conditionExpression(path: string, condition: Record<string, unknown>): unknown {
  const terms = Object.entries(condition).map(([operator, operand]) => {
    switch (operator) {
      case '$eq':
        return { $eq: [path, { $literal: operand }] };
      case '$ne':
        return { $ne: [path, { $literal: operand }] };
      case '$elemMatch':
        return {
          $gt: [
            {
              $size: {
                $filter: {
                  input: { $cond: [{ $isArray: [path] }, path, []] },
                  as: 'element',
                  cond: filterToExpression(operand as Record<string, unknown>, 'element'),
                },
              },
            },
            0,
          ],
        };
      default:
        throw new Error(`a dimension rule cannot use ${operator}`);
    }
  });
  return terms.length === 1 ? terms[0] : { $and: terms };
}
