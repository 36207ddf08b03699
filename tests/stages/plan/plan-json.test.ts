import { describe, expect, it } from 'vitest';
import { preview, readJson } from '../../../stages/plan/plan-json.js';

describe('readJson', () => {
  it('reads plain JSON, a fenced block and JSON with prose around it', () => {
    expect(readJson('{"steps":["a"]}')).toEqual({ ok: true, value: { steps: ['a'] } });
    expect(readJson('Here is the plan:\n```json\n{"steps":["a"]}\n```\nGood luck.')).toEqual({
      ok: true,
      value: { steps: ['a'] },
    });
    expect(readJson('Sure! [1, 2, 3] is the list.')).toEqual({ ok: true, value: [1, 2, 3] });
  });

  it('recovers trailing commas, and single quotes when no double quote could break', () => {
    expect(readJson('{"steps": ["a", "b",],}')).toEqual({ ok: true, value: { steps: ['a', 'b'] } });
    expect(readJson("{'goal': 'it\\'s fine', 'steps': ['a',]}")).toEqual({
      ok: true,
      value: { goal: "it's fine", steps: ['a'] },
    });
  });

  it('names the problem and shows the reply when there is no JSON or it cannot be read', () => {
    expect(readJson('I cannot plan this.')).toEqual({
      ok: false,
      problem: 'the reply holds no JSON object or list: I cannot plan this.',
    });
    const broken = readJson('{"steps": [oops]}');
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.problem).toMatch(/^the reply is not valid JSON \(.+\): \{"steps": \[oops\]\}$/);
  });
});

describe('preview', () => {
  it('is one line of at most 120 characters, and says when the text is empty', () => {
    expect(preview('  a\n  b ')).toBe('a b');
    expect(preview('')).toBe('(empty)');
    expect(preview('x'.repeat(200))).toBe(`${'x'.repeat(120)}...`);
  });
});
