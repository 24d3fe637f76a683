import {
  ComparisonOperator,
  DIMENSION_NAME_RULE,
  EXPRESSION_FIELDS,
  Expression,
  ValueNode,
  isDimensionName,
  isExpressionField,
  recordPosition,
} from './ast';
import { ExpressionError } from './errors';
import { Token, Tokenizer, describeToken } from './tokenizer';

export const EXPRESSION_LIMITS = {
  /** UTF-8 bytes of the whole expression text. */
  maxBytes: 4096,
  /** Nested '(' and '!' together. */
  maxDepth: 32,
  /** Field comparisons, tag(...) and dimension(...) calls together. */
  maxComparisons: 200,
} as const;

/** Parses expression text into a syntax tree, or throws an ExpressionError saying where and why not. */
export function parse(text: string): Expression {
  if (typeof text !== 'string') throw new ExpressionError('expected the expression to be a string', 0);
  checkLength(text);
  return new Parser(text).parseWhole();
}

function checkLength(text: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= EXPRESSION_LIMITS.maxBytes) return;
  let used = 0;
  let firstExcess = 0;
  for (const character of text) {
    used += Buffer.byteLength(character, 'utf8');
    if (used > EXPRESSION_LIMITS.maxBytes) break;
    firstExcess += character.length;
  }
  throw new ExpressionError(
    `expression too long at position ${firstExcess}: at most ${EXPRESSION_LIMITS.maxBytes} bytes (4 KiB) are allowed, found ${bytes} bytes`,
    firstExcess,
  );
}

/** What may start an operand, for error messages. */
const OPERAND = `a comparison, tag(...), dimension(...), '!' or '('`;

const FUNCTIONS = `tag('<group>', '<key>' == '<value>') and dimension('<name>') == '<value>'`;

class Parser {
  private readonly tokenizer: Tokenizer;
  private current: Token;
  private depth = 0;
  private comparisons = 0;

  constructor(text: string) {
    this.tokenizer = new Tokenizer(text);
    this.current = this.tokenizer.next();
  }

  parseWhole(): Expression {
    const expression = this.parseOr();
    if (this.current.kind === ')') {
      throw new ExpressionError(`unexpected ')' at position ${this.current.position}: there is no '(' to close`, this.current.position);
    }
    if (this.current.kind !== 'end') throw this.expected(`'&&', '||' or end of expression`);
    return expression;
  }

  private parseOr(): Expression {
    const start = this.current.position;
    const first = this.parseAnd();
    if (this.current.kind !== '||') return first;
    const operands: [Expression, Expression, ...Expression[]] = [first, this.parseAfterOperator('||', () => this.parseAnd())];
    while (this.current.kind === '||') operands.push(this.parseAfterOperator('||', () => this.parseAnd()));
    return recordPosition({ kind: 'or', operands }, start);
  }

  private parseAnd(): Expression {
    const start = this.current.position;
    const first = this.parseUnary();
    if (this.current.kind !== '&&') return first;
    const operands: [Expression, Expression, ...Expression[]] = [first, this.parseAfterOperator('&&', () => this.parseUnary())];
    while (this.current.kind === '&&') operands.push(this.parseAfterOperator('&&', () => this.parseUnary()));
    return recordPosition({ kind: 'and', operands }, start);
  }

  private parseAfterOperator(operator: '&&' | '||', parseOperand: () => Expression): Expression {
    this.advance();
    if (!this.startsOperand()) throw this.expected(`${OPERAND} after '${operator}'`);
    return parseOperand();
  }

  private parseUnary(): Expression {
    if (this.current.kind !== '!') return this.parsePrimary();
    const start = this.current.position;
    this.enterNesting(start);
    this.advance();
    if (!this.startsOperand()) throw this.expected(`${OPERAND} after '!'`);
    const operand = this.parseUnary();
    this.depth--;
    return recordPosition({ kind: 'not', operand }, start);
  }

  private parsePrimary(): Expression {
    const token = this.current;
    if (token.kind === 'word') return this.parseWord(token);
    if (token.kind !== '(') throw this.expected(OPERAND);
    this.enterNesting(token.position);
    this.advance();
    const inner = this.parseOr();
    this.consume(')', `')'`, `to close the '(' at position ${token.position}`);
    this.depth--;
    return inner;
  }

  private parseWord(word: Extract<Token, { kind: 'word' }>): Expression {
    const name = word.text;
    const isCall = this.tokenizer.peekCharacter() === '(';
    if (isCall && name !== 'tag' && name !== 'dimension') {
      throw new ExpressionError(
        `unknown function ${describeToken(word)} at position ${word.position}: the only functions are ${FUNCTIONS}`,
        word.position,
      );
    }
    if (name === 'true' || name === 'false') {
      this.advance();
      return recordPosition({ kind: 'constant', value: name === 'true' }, word.position);
    }
    if (name === 'tag') {
      this.advance();
      if (this.current.kind !== '(') throw this.expected(`'(' after 'tag'`);
      return this.parseTagCall(word.position);
    }
    if (name === 'dimension') {
      this.advance();
      if (this.current.kind !== '(') throw this.expected(`'(' after 'dimension'`);
      return this.parseDimensionCall(word.position);
    }
    if (!isExpressionField(name)) {
      throw new ExpressionError(
        `unknown field ${describeToken(word)} at position ${word.position}: ` +
          `expected one of ${EXPRESSION_FIELDS.join(', ')}, tag(...) or dimension(...)`,
        word.position,
      );
    }
    this.countComparison(word.position);
    this.advance();
    const op = this.parseOperator(`after '${name}'`);
    const value = this.parseValue(op);
    return recordPosition({ kind: 'compare', field: name, op, value }, word.position);
  }

  /** `tag ( group , key op value )`, with the current token on '('. */
  private parseTagCall(start: number): Expression {
    this.countComparison(start);
    const open = this.current.position;
    this.advance();
    const group = this.parseQuoted(`a quoted tag group after 'tag('`);
    this.consume(',', `',' after the tag group`);
    const key = this.parseQuoted(`a quoted tag key after ','`);
    const op = this.parseOperator('after the tag key');
    const value = this.parseValue(op);
    this.consume(')', `')'`, `to close the 'tag(' at position ${open}`);
    return recordPosition({ kind: 'tag', group, key, op, value }, start);
  }

  /** `dimension ( name ) op value`, with the current token on '('. */
  private parseDimensionCall(start: number): Expression {
    this.countComparison(start);
    const open = this.current.position;
    this.advance();
    const nameToken = this.current;
    const name = this.parseQuoted(`a quoted dimension name after 'dimension('`);
    if (!isDimensionName(name)) {
      throw new ExpressionError(
        `invalid dimension name ${JSON.stringify(shorten(name))} at position ${nameToken.position}: ` +
          `a dimension name is ${DIMENSION_NAME_RULE}`,
        nameToken.position,
      );
    }
    this.consume(')', `')'`, `to close the 'dimension(' at position ${open}`);
    const op = this.parseOperator(`after 'dimension(...)'`);
    const value = this.parseValue(op);
    return recordPosition({ kind: 'dimension', name, op, value }, start);
  }

  private parseQuoted(what: string): string {
    const token = this.current;
    if (token.kind !== 'string') throw this.expected(what);
    this.advance();
    return token.value;
  }

  private parseOperator(context: string): ComparisonOperator {
    const token = this.current;
    if (token.kind !== '==' && token.kind !== '!=') throw this.expected(`'==' or '!=' ${context}`);
    this.advance();
    return token.kind;
  }

  private parseValue(op: ComparisonOperator): ValueNode {
    const token = this.current;
    if (token.kind === 'string') {
      this.advance();
      return recordPosition({ kind: 'literal', value: token.value }, token.position);
    }
    if (token.kind === 'placeholder') {
      this.advance();
      return recordPosition({ kind: 'param', name: token.name }, token.position);
    }
    throw this.expected(`a quoted string or \${name} placeholder after '${op}'`);
  }

  private startsOperand(): boolean {
    return this.current.kind === 'word' || this.current.kind === '(' || this.current.kind === '!';
  }

  private enterNesting(position: number): void {
    this.depth++;
    if (this.depth > EXPRESSION_LIMITS.maxDepth) {
      throw new ExpressionError(
        `nesting too deep at position ${position}: at most ${EXPRESSION_LIMITS.maxDepth} nested '(' and '!' are allowed`,
        position,
      );
    }
  }

  private countComparison(position: number): void {
    this.comparisons++;
    if (this.comparisons > EXPRESSION_LIMITS.maxComparisons) {
      throw new ExpressionError(
        `too many comparisons at position ${position}: ` +
          `at most ${EXPRESSION_LIMITS.maxComparisons} comparisons, tag(...) and dimension(...) calls are allowed`,
        position,
      );
    }
  }

  private consume(kind: Token['kind'], what: string, purpose?: string): void {
    if (this.current.kind !== kind) throw this.expected(what, purpose);
    this.advance();
  }

  private advance(): void {
    this.current = this.tokenizer.next();
  }

  private expected(what: string, purpose?: string): ExpressionError {
    const { position } = this.current;
    const why = purpose ? ` ${purpose}` : '';
    return new ExpressionError(`expected ${what} at position ${position}${why}, found ${describeToken(this.current)}`, position);
  }
}

function shorten(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
