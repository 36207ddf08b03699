import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseStructured } from '../../../stages/shared/structured-output.js';
import { emptyUsage, type ChatResponse } from '../../../src/model/types.js';

const schema = z.strictObject({ total: z.number() });
const reply = (content: string, parsed?: unknown): ChatResponse => ({
  content,
  toolCalls: [],
  finishReason: 'stop',
  usage: emptyUsage(),
  model: 'm',
  latencyMs: 0,
  ...(parsed === undefined ? {} : { parsed }),
});

describe('parseStructured', () => {
  it("takes the adapter's parsed value first, else the JSON in the content, fenced or not", () => {
    expect(parseStructured(reply('not json', { total: 1 }), schema)).toEqual({ ok: true, value: { total: 1 } });
    expect(parseStructured(reply('{"total": 2}'), schema)).toEqual({ ok: true, value: { total: 2 } });
    expect(parseStructured(reply('Here:\n```json\n{"total": 3}\n```'), schema)).toEqual({
      ok: true,
      value: { total: 3 },
    });
  });

  it('says when the reply is not JSON, with a short preview, and lets zod say what does not fit', () => {
    expect(parseStructured(reply('The total is   four.'), schema)).toEqual({
      ok: false,
      problem: 'the reply is not JSON: The total is four.',
    });
    expect(parseStructured(reply(''), schema)).toEqual({ ok: false, problem: 'the reply is not JSON: (empty)' });
    const wrong = parseStructured(reply('{"total": "4"}'), schema);
    expect(wrong.ok).toBe(false);
    expect(!wrong.ok && wrong.problem).toContain('total');
  });
});
