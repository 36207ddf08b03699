import { describe, expect, it } from 'vitest';
import { lookupModel } from '../../src/model/model-table.js';

const table = { 'gpt-4': 1, 'gpt-4o': 2, 'llama3.1': 3 };

describe('lookupModel', () => {
  it('finds the exact name, case and provider prefix aside', () => {
    expect(lookupModel(table, 'gpt-4o')).toBe(2);
    expect(lookupModel(table, ' GPT-4O ')).toBe(2);
    expect(lookupModel(table, 'openai/gpt-4o')).toBe(2);
  });

  it('falls back to the longest entry the name extends at a separator', () => {
    expect(lookupModel(table, 'gpt-4o-2024-08-06')).toBe(2);
    expect(lookupModel(table, 'llama3.1:8b')).toBe(3);
    expect(lookupModel(table, 'llama3.1@q4')).toBe(3);
  });

  it('a dot or a plain letter is not a separator: no fallback to a shorter family', () => {
    expect(lookupModel(table, 'gpt-4.5-preview')).toBeUndefined();
    expect(lookupModel(table, 'gpt-4turbo')).toBeUndefined();
    expect(lookupModel({}, 'gpt-4o')).toBeUndefined();
  });

  it('remembers answers per table: another table with the same name answers from its own entries', () => {
    expect(lookupModel({ mistral: 7 }, 'mistral-large')).toBe(7);
    expect(lookupModel({ mistral: 7 }, 'mistral-large')).toBe(7);
    expect(lookupModel({ mistral: 8 }, 'mistral-large')).toBe(8);
  });
});
