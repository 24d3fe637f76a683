import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../api/problem';
import { markAt, splitProblem, submitsOnKey } from './expression';

const invalid = (position?: number) => new ApiError(400, 'INVALID_EXPRESSION', 'Expected a value after "="', { position });

describe('expression input', () => {
  it('marks the character at the error’s position, with the text before and after it', () => {
    expect(markAt('region = "eu" &&', 7)).toEqual({ before: 'region ', marked: '=', after: ' "eu" &&' });
    expect(markAt('abc', 0)).toEqual({ before: '', marked: 'a', after: 'bc' });
  });

  it('marks a space past the end, where a missing token was expected', () => {
    const text = 'providerName == "aws" && region =';
    expect(markAt(text, text.length)).toEqual({ before: text, marked: ' ', after: '' });
    expect(markAt('', 0)).toEqual({ before: '', marked: ' ', after: '' });
  });

  it('keeps a position from outside the text within it', () => {
    expect(markAt('abc', 99)).toEqual({ before: 'abc', marked: ' ', after: '' });
    expect(markAt('abc', -4)).toEqual({ before: '', marked: 'a', after: 'bc' });
    expect(markAt('abc', 1.7)).toEqual({ before: 'a', marked: 'b', after: 'c' });
    expect(markAt('abc', Number.NaN)).toEqual({ before: '', marked: 'a', after: 'bc' });
  });

  it('gives the field an INVALID_EXPRESSION with a position, and the form any other problem', () => {
    expect(splitProblem(undefined)).toEqual({});
    const marked = invalid(3);
    expect(splitProblem(marked)).toEqual({ expression: marked });
    const unplaced = invalid(undefined);
    expect(splitProblem(unplaced)).toEqual({ other: unplaced });
    const conflict = new ApiError(409, 'VERSION_CONFLICT', 'Changed meanwhile', { position: 3 });
    expect(splitProblem(conflict)).toEqual({ other: conflict });
  });

  it('submits on Enter, not while an input method composes', () => {
    expect(submitsOnKey('Enter')).toBe(true);
    expect(submitsOnKey('Enter', true)).toBe(false);
    expect(submitsOnKey('a')).toBe(false);
  });
});
