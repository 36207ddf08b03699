import { describe, expect, it } from 'vitest';
import {
  contextShareTokens,
  contextWindowFor,
  defaultContextShare,
  unknownModelWindow,
} from '../../../stages/shared/context-window.js';

describe('contextWindowFor', () => {
  it("reads the table, with the caller's windows first", () => {
    expect(contextWindowFor('gpt-4o')).toBe(128_000);
    expect(contextWindowFor('gpt-4o', { 'gpt-4o': 8_000 })).toBe(8_000);
    expect(contextWindowFor('my-local-model', { 'my-local-model': 4_096 })).toBe(4_096);
  });

  it('assumes 128,000 tokens for an unknown or unnamed model', () => {
    expect(unknownModelWindow).toBe(128_000);
    expect(contextWindowFor('no-such-model')).toBe(unknownModelWindow);
    expect(contextWindowFor(undefined)).toBe(unknownModelWindow);
  });

  it('the default share is 80%, in whole tokens', () => {
    expect(defaultContextShare).toBe(0.8);
    expect(contextShareTokens(undefined, defaultContextShare)).toBe(102_400);
    expect(contextShareTokens('tiny', 0.5, { tiny: 1_001 })).toBe(500);
  });
});
