import { Decimal128, Long } from 'bson';
import { Query } from 'mingo';
import { isPlainObject, toNumber, type Document } from './bson-values';
import { mingoCollation, queryContext, rewriteFilterForCollation, type ResolvedCollation } from './collation';
import { CommandError, commandError, notSupported, toCommandError } from './errors';
import { FieldSelection } from './record-codec';

export interface QueryOptions {
  collation: ResolvedCollation | null;
  variables?: Document;
}

export function mingoOptions(options: QueryOptions): Record<string, unknown> {
  return {
    context: queryContext,
    collation: mingoCollation(options.collation),
    variables: options.variables,
    useStrictMode: true,
  };
}

const UNSUPPORTED_QUERY_OPERATORS = ['$text', '$near', '$nearSphere', '$geoWithin', '$geoIntersects', '$where'];
const RANGE_OPERATORS = ['$gt', '$gte', '$lt', '$lte'];

export function refuseUnsupportedOperators(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(refuseUnsupportedOperators);
  if (!isPlainObject(value)) return;
  for (const [key, inner] of Object.entries(value)) {
    if (UNSUPPORTED_QUERY_OPERATORS.includes(key)) throw notSupported(`the ${key} query operator`);
    if ((key === '$in' || key === '$nin') && !Array.isArray(inner)) throw commandError('BadValue', `${key} needs an array`);
    // mingo would order these by their string form, which is not numeric order.
    if (RANGE_OPERATORS.includes(key) && (inner instanceof Long || inner instanceof Decimal128)) {
      throw notSupported(`${key} with a ${inner instanceof Long ? 'Long' : 'Decimal128'} operand`);
    }
    refuseUnsupportedOperators(inner);
  }
}

export interface Matcher {
  /** The filter after collation rewriting (what the positional `$` updater must see). */
  readonly filter: Document;
  readonly isEmpty: boolean;
  /**
   * The top-level fields the filter reads: the test of a document with those fields alone answers as
   * the test of the whole document. Null when the filter may read any field (`$expr`, `$jsonSchema`…).
   */
  readonly fields: FieldSelection | null;
  test(doc: Document): boolean;
}

/**
 * Adds the top-level fields a filter's conditions are on (a condition on `a.b` reads `a`); false
 * when the filter has a top-level operator other than `$and`, `$or` and `$nor` over such filters
 * (`$expr` reads anything).
 */
function collectFilterFields(filter: Document, into: Set<string>): boolean {
  for (const key of Object.keys(filter)) {
    if (key.charCodeAt(0) !== 0x24) {
      const dot = key.indexOf('.');
      into.add(dot < 0 ? key : key.slice(0, dot));
      continue;
    }
    if (key !== '$and' && key !== '$or' && key !== '$nor') return false;
    const clauses: unknown = filter[key];
    if (!Array.isArray(clauses)) return false;
    for (const clause of clauses) if (!isPlainObject(clause) || !collectFilterFields(clause, into)) return false;
  }
  return true;
}

export function filterFields(filter: Document): FieldSelection | null {
  const names = new Set<string>();
  return collectFilterFields(filter, names) ? new FieldSelection(names) : null;
}

export function compileFilter(raw: unknown, options: QueryOptions): Matcher {
  if (raw === undefined || raw === null) raw = {};
  if (!isPlainObject(raw)) throw commandError('TypeMismatch', "BSON field 'filter' is the wrong type, expected type 'object'");
  refuseUnsupportedOperators(raw);
  const filter = rewriteFilterForCollation(raw, options.collation?.level ?? 0);
  const isEmpty = Object.keys(filter).length === 0;
  let query: Query;
  try {
    query = new Query(filter, mingoOptions(options));
  } catch (error) {
    throw toCommandError(error);
  }
  return {
    filter,
    isEmpty,
    fields: filterFields(filter),
    test: (doc) => {
      if (isEmpty) return true;
      try {
        return query.test(doc);
      } catch (error) {
        throw toCommandError(error);
      }
    },
  };
}

export function validateSort(raw: unknown): Record<string, 1 | -1> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isPlainObject(raw)) throw commandError('TypeMismatch', 'Expected field sort to be of type object');
  const sort: Record<string, 1 | -1> = {};
  for (const [field, direction] of Object.entries(raw)) {
    if (isPlainObject(direction)) throw notSupported(`sorting by ${JSON.stringify(direction)}`);
    const n = toNumber(direction);
    if (n !== 1 && n !== -1) {
      throw new CommandError(15975, '$sort key ordering must be 1 (for ascending) or -1 (for descending)');
    }
    if (field === '$natural') continue;
    sort[field] = n;
  }
  return Object.keys(sort).length > 0 ? sort : undefined;
}

export function sortDocuments(docs: Document[], sort: Record<string, 1 | -1>, options: QueryOptions): Document[] {
  try {
    return new Query({}, mingoOptions(options)).find<Document>(docs).sort(sort).all();
  } catch (error) {
    throw toCommandError(error);
  }
}

type ProjectionTree = Map<string, ProjectionTree | true>;

function isSimpleProjection(projection: Document): boolean {
  return Object.entries(projection).every(
    ([key, value]) => !key.includes('$') && (typeof value === 'boolean' || toNumber(value) !== undefined),
  );
}

function buildTree(paths: string[]): ProjectionTree {
  const root: ProjectionTree = new Map();
  for (const path of paths) {
    const parts = path.split('.');
    let node = root;
    for (const [i, part] of parts.entries()) {
      if (i === parts.length - 1) {
        node.set(part, true);
        break;
      }
      let next = node.get(part);
      if (next === true) break;
      if (!next) node.set(part, (next = new Map()));
      node = next;
    }
  }
  return root;
}

function includeFields(value: unknown, tree: ProjectionTree): unknown {
  if (Array.isArray(value))
    return value.filter((item) => isPlainObject(item) || Array.isArray(item)).map((item) => includeFields(item, tree));
  if (!isPlainObject(value)) return undefined;
  const out: Document = {};
  for (const key of Object.keys(value)) {
    const node = tree.get(key);
    if (!node) continue;
    if (node === true) out[key] = value[key];
    else {
      const inner = includeFields(value[key], node);
      if (inner !== undefined) out[key] = inner;
    }
  }
  return out;
}

function excludeFields(value: unknown, tree: ProjectionTree): unknown {
  if (Array.isArray(value)) return value.map((item) => excludeFields(item, tree));
  if (!isPlainObject(value)) return value;
  const out: Document = {};
  for (const key of Object.keys(value)) {
    const node = tree.get(key);
    if (node === true) continue;
    out[key] = node ? excludeFields(value[key], node) : value[key];
  }
  return out;
}

export type Projector = (doc: Document) => Document;

/**
 * Plain inclusion/exclusion projections are done here (keeping mongod's field order);
 * projections with operators or expressions go to mingo.
 */
export function compileProjection(raw: unknown, options: QueryOptions, filter: Document = {}): Projector | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isPlainObject(raw)) throw commandError('TypeMismatch', 'Expected field projection to be of type object');
  if (Object.keys(raw).length === 0) return undefined;
  if (!isSimpleProjection(raw)) {
    return (doc) => {
      try {
        return new Query(filter, mingoOptions(options)).find<Document>([doc], raw).all()[0];
      } catch (error) {
        throw toCommandError(error);
      }
    };
  }
  const flags = Object.entries(raw).map(([key, value]) => [key, value === true || (toNumber(value) ?? 0) !== 0] as const);
  const nonId = flags.filter(([key]) => key !== '_id');
  const inclusion = nonId.length > 0 ? nonId[0][1] : flags.every(([, on]) => on);
  if (nonId.some(([, on]) => on !== inclusion)) {
    const [path] = nonId.find(([, on]) => on !== inclusion) ?? ['?'];
    throw new CommandError(
      31254,
      `Cannot do ${inclusion ? 'exclusion' : 'inclusion'} on field ${path} in ${inclusion ? 'inclusion' : 'exclusion'} projection`,
    );
  }
  const idFlag = flags.find(([key]) => key === '_id');
  if (inclusion) {
    const paths = nonId.map(([key]) => key);
    if (!idFlag || idFlag[1]) paths.unshift('_id');
    const tree = buildTree(paths);
    return (doc) => includeFields(doc, tree) as Document;
  }
  const paths = nonId.map(([key]) => key);
  if (idFlag && !idFlag[1]) paths.push('_id');
  const tree = buildTree(paths);
  return (doc) => excludeFields(doc, tree) as Document;
}
