// defineTool: name rules, the JSON schema sent to the model, strictness.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isStrictCompatible } from '../../src/model/structured-output.js';
import { defineTool } from '../../src/tools/define-tool.js';

const noop = async () => 'ok';

describe('defineTool', () => {
  it('computes a draft-7 JSON schema with additionalProperties false, once', () => {
    const tool = defineTool({
      name: 'lookup_order',
      description: 'Find one order by id.',
      parameters: z.object({ id: z.string().regex(/^\d+$/), status: z.enum(['open', 'shipped']).optional() }),
      execute: noop,
    });
    expect(tool.definition).toEqual({
      name: 'lookup_order',
      description: 'Find one order by id.',
      parameters: {
        type: 'object',
        properties: {
          id: { type: 'string', pattern: '^\\d+$' },
          status: { type: 'string', enum: ['open', 'shipped'] },
        },
        required: ['id'],
        additionalProperties: false,
      },
      strict: false,
    });
    expect(Object.isFrozen(tool.definition.parameters)).toBe(true);
  });

  it('marks the definition strict when every property is required', () => {
    const tool = defineTool({
      name: 'add',
      description: 'Adds.',
      parameters: z.strictObject({ a: z.number(), b: z.number().nullable() }),
      execute: noop,
    });
    expect(tool.definition.strict).toBe(true);
    expect(
      defineTool({
        name: 'add',
        description: 'Adds.',
        parameters: z.object({ a: z.number() }),
        execute: noop,
        strict: false,
      }).definition.strict,
    ).toBe(false);
  });

  it('makes a plain object schema strict, so unknown keys are rejected', () => {
    const tool = defineTool({
      name: 'echo',
      description: 'Echo.',
      parameters: z.object({ text: z.string() }),
      execute: noop,
    });
    const result = tool.parameters.safeParse({ text: 'a', extra: 1 });
    expect(result.success).toBe(false);
  });

  it.each(['', 'has space', 'dot.name', 'x'.repeat(65), 'émoji'])('rejects the name %j', (name) => {
    expect(() => defineTool({ name, description: 'd', parameters: z.object({}), execute: noop })).toThrow(
      expect.objectContaining({ code: 'tool' }),
    );
  });

  it('accepts names of 64 letters, digits, _ and -', () => {
    expect(
      defineTool({ name: `a-${'b_9'.repeat(20)}x`, description: 'd', parameters: z.object({}), execute: noop }).name,
    ).toHaveLength(63);
    expect(() =>
      defineTool({ name: 'x'.repeat(64), description: 'd', parameters: z.object({}), execute: noop }),
    ).not.toThrow();
  });

  it('refuses an empty description, a bad timeout and a schema JSON schema cannot express', () => {
    expect(() => defineTool({ name: 'a', description: ' ', parameters: z.object({}), execute: noop })).toThrow(
      /description/,
    );
    expect(() =>
      defineTool({ name: 'a', description: 'd', parameters: z.object({}), execute: noop, timeoutMs: 0 }),
    ).toThrow(/timeoutMs/);
    expect(() =>
      defineTool({ name: 'a', description: 'd', parameters: z.object({ when: z.date() }), execute: noop }),
    ).toThrow(/JSON schema/);
  });

  it('types args from the schema', async () => {
    const tool = defineTool({
      name: 'typed',
      description: 'd',
      parameters: z.object({ count: z.number().default(2) }),
      execute: (args) => {
        const count: number = args.count;
        return String(count * 2);
      },
    });
    expect(await tool.execute({ count: 3 }, { signal: new AbortController().signal, idempotencyKey: 'key' })).toBe('6');
  });
});

describe('isStrictCompatible', () => {
  it('looks into nested objects and arrays', () => {
    const closed = {
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    };
    expect(
      isStrictCompatible({ ...closed, properties: { list: { type: 'array', items: closed } }, required: ['list'] }),
    ).toBe(true);
    const open = { type: 'object', properties: { a: { type: 'string' } }, required: [] };
    expect(
      isStrictCompatible({ ...closed, properties: { list: { type: 'array', items: open } }, required: ['list'] }),
    ).toBe(false);
  });

  // Where the two checks (tools' and structured output's) once disagreed: data is not a schema, every subschema is.
  it('reads a property named "properties", a default and an enum as data, and checks not and prefixItems', () => {
    const closed = {
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    };
    const open = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    expect(
      isStrictCompatible({ ...closed, properties: { properties: { type: 'string' } }, required: ['properties'] }),
    ).toBe(true);
    expect(
      isStrictCompatible({
        ...closed,
        properties: { a: { ...closed, default: { properties: { x: 1 } }, enum: [{ type: 'object', properties: {} }] } },
      }),
    ).toBe(true);
    expect(isStrictCompatible({ ...closed, properties: { a: { not: open } } })).toBe(false);
    expect(isStrictCompatible({ ...closed, properties: { a: { type: 'array', prefixItems: [closed, open] } } })).toBe(
      false,
    );
    expect(isStrictCompatible({ anyOf: [closed, { type: 'array', items: [closed] }] })).toBe(true);
  });
});
