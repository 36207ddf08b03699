import { describe, expect, it } from 'vitest';
import { shortText } from '../../../stages/shared/text.js';

describe('shortText', () => {
  it('keeps a short line as it is and folds whitespace runs into one space', () => {
    expect(shortText('12 * 12 = 144')).toBe('12 * 12 = 144');
    expect(shortText('  one\n\ttwo   three ')).toBe('one two three');
  });

  it('cuts a long text at the limit, ending in three dots so it does not read as the whole', () => {
    const cut = shortText('x'.repeat(300));
    expect(cut).toHaveLength(200);
    expect(cut.endsWith('...')).toBe(true);
    expect(shortText('abcdefghij', 8)).toBe('abcde...');
    expect(shortText('abcdefgh', 8)).toBe('abcdefgh');
  });
});
