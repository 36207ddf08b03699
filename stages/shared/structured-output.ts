// Reads a structured reply: the adapter's `parsed` value when it gave one, else JSON in the content; zod decides.
import { z } from 'zod';
import type { ChatResponse } from '../../src/model/types.js';

export type Structured<Value> = { ok: true; value: Value } | { ok: false; problem: string };

export function parseStructured<Value>(response: ChatResponse, schema: z.ZodType<Value>): Structured<Value> {
  let candidate: unknown = response.parsed;
  if (candidate === undefined) {
    try {
      candidate = JSON.parse(withoutCodeFence(response.content));
    } catch {
      return { ok: false, problem: `the reply is not JSON: ${preview(response.content)}` };
    }
  }
  const checked = schema.safeParse(candidate);
  return checked.success ? { ok: true, value: checked.data } : { ok: false, problem: z.prettifyError(checked.error) };
}

function withoutCodeFence(text: string): string {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  return (fenced?.[1] ?? text).trim();
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat === '' ? '(empty)' : flat.length > 80 ? `${flat.slice(0, 80)}...` : flat;
}
