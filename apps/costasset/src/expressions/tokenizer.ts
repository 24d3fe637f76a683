import { ExpressionError } from './errors';

export type Punctuator = '(' | ')' | ',' | '==' | '!=' | '&&' | '||' | '!';

export type Token =
  | { kind: 'word'; text: string; position: number }
  | { kind: 'string'; value: string; position: number }
  | { kind: 'placeholder'; name: string; position: number }
  | { kind: Punctuator; position: number }
  | { kind: 'end'; position: number };

const WHITESPACE = new Set([' ', '\t', '\n', '\r', '\f', '\v']);
const QUOTES = new Set(["'", '"']);
const ESCAPABLE = new Set(['\\', "'", '"', '$']);
// Words are lexed more loosely than field names (`$where`, `tags.group`, `régïon`, `123`) so that the
// parser can refuse them as "unknown field 'x'" instead of a puzzling "unexpected character".
const WORD_CHARACTER = /[\p{L}\p{N}_$.]/u;
const PLACEHOLDER_NAME = /[A-Za-z_][A-Za-z0-9_]*/y;

/** Reads tokens one at a time, so that the first error in the text is the one reported. */
export class Tokenizer {
  private offset = 0;

  constructor(private readonly text: string) {}

  /** The next character that is not whitespace, without consuming anything. */
  peekCharacter(): string | undefined {
    let index = this.offset;
    while (index < this.text.length && WHITESPACE.has(this.text[index])) index++;
    return this.text[index];
  }

  next(): Token {
    while (this.offset < this.text.length && WHITESPACE.has(this.text[this.offset])) this.offset++;
    const start = this.offset;
    const character = this.text[start];
    if (character === undefined) return { kind: 'end', position: start };

    switch (character) {
      case '(':
      case ')':
      case ',':
        this.offset++;
        return { kind: character, position: start };
      case '=':
        return this.equalityOperator('==', start);
      case '!':
        return this.text[start + 1] === '=' ? this.equalityOperator('!=', start) : this.single('!', start);
      case '&':
        return this.doubled('&&', start);
      case '|':
        return this.doubled('||', start);
    }
    if (QUOTES.has(character)) return this.quotedString(character, start);
    if (character === '$' && this.text[start + 1] === '{') return this.placeholder(start);
    if (WORD_CHARACTER.test(character)) return this.word(start);
    throw new ExpressionError(`unexpected character ${describeCharacter(this.text, start)} at position ${start}`, start);
  }

  private single(kind: Punctuator, start: number): Token {
    this.offset = start + 1;
    return { kind, position: start };
  }

  private equalityOperator(operator: '==' | '!=', start: number): Token {
    if (this.text[start + 1] !== '=') {
      throw new ExpressionError(`expected '${operator}' at position ${start}, found ${describeCharacter(this.text, start)}`, start);
    }
    if (this.text[start + 2] === '=') {
      throw new ExpressionError(
        `expected '${operator}' at position ${start}, found '${operator}=' (there is no '${operator}=' operator)`,
        start,
      );
    }
    this.offset = start + 2;
    return { kind: operator, position: start };
  }

  private doubled(operator: '&&' | '||', start: number): Token {
    if (this.text[start + 1] !== operator[0]) {
      throw new ExpressionError(`expected '${operator}' at position ${start}, found '${operator[0]}'`, start);
    }
    this.offset = start + 2;
    return { kind: operator, position: start };
  }

  private quotedString(quote: string, start: number): Token {
    let value = '';
    let index = start + 1;
    while (index < this.text.length) {
      const character = this.text[index];
      if (character === quote) {
        this.offset = index + 1;
        return { kind: 'string', value, position: start };
      }
      if (character === '$') this.refuseQuotedPlaceholder(index);
      if (character === '\\') {
        const escaped = this.text[index + 1];
        if (escaped === undefined) break;
        if (!ESCAPABLE.has(escaped)) {
          throw new ExpressionError(
            `unsupported escape ${describeEscape(this.text, index + 1)} at position ${index}: only \\\\, \\', \\" and \\$ are allowed`,
            index,
          );
        }
        value += escaped;
        index += 2;
        continue;
      }
      value += character;
      index++;
    }
    throw new ExpressionError(
      `unterminated string: expected a closing ${quote} for the string at position ${start}, found end of expression`,
      start,
    );
  }

  /**
   * `period == '${period}'` would compare with the text `${period}` and silently match nothing, so
   * a placeholder inside quotes is refused; `'\\${period}'` is the literal text.
   */
  private refuseQuotedPlaceholder(index: number): void {
    if (this.text[index + 1] !== '{') return;
    PLACEHOLDER_NAME.lastIndex = index + 2;
    const match = PLACEHOLDER_NAME.exec(this.text);
    if (!match || this.text[index + 2 + match[0].length] !== '}') return;
    const placeholder = `\${${match[0]}}`;
    throw new ExpressionError(
      `placeholder ${placeholder} inside quotes at position ${index}: a placeholder is filled only without quotes ` +
        `(<field> == ${placeholder}), and always as one literal string; for the text ${placeholder} itself write \\${placeholder}`,
      index,
    );
  }

  private placeholder(start: number): Token {
    const nameStart = start + 2;
    PLACEHOLDER_NAME.lastIndex = nameStart;
    const match = PLACEHOLDER_NAME.exec(this.text);
    if (!match) {
      throw new ExpressionError(
        `expected a placeholder name ([A-Za-z_][A-Za-z0-9_]*) after '\${' at ` +
          `position ${nameStart}, found ${describeCharacter(this.text, nameStart)}`,
        nameStart,
      );
    }
    const closing = nameStart + match[0].length;
    if (this.text[closing] !== '}') {
      throw new ExpressionError(
        `expected '}' at position ${closing} to close the placeholder started ` +
          `at position ${start}, found ${describeCharacter(this.text, closing)}`,
        closing,
      );
    }
    this.offset = closing + 1;
    return { kind: 'placeholder', name: match[0], position: start };
  }

  private word(start: number): Token {
    let index = start;
    while (index < this.text.length && WORD_CHARACTER.test(this.text[index]) && !this.text.startsWith('${', index)) index++;
    this.offset = index;
    return { kind: 'word', text: this.text.slice(start, index), position: start };
  }
}

export function describeToken(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'end of expression';
    case 'word':
      return `'${shorten(token.text)}'`;
    case 'string':
      return 'a quoted string';
    case 'placeholder':
      return `placeholder \${${shorten(token.name)}}`;
    default:
      return `'${token.kind}'`;
  }
}

function describeCharacter(text: string, index: number): string {
  const codePoint = text.codePointAt(index);
  if (codePoint === undefined) return 'end of expression';
  if (codePoint >= 0x21 && codePoint <= 0x7e) return `'${String.fromCodePoint(codePoint)}'`;
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

function describeEscape(text: string, index: number): string {
  const escaped = describeCharacter(text, index);
  return escaped.startsWith("'") ? `'\\${escaped.slice(1)}` : `'\\' followed by ${escaped}`;
}

function shorten(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
