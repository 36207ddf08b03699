import { describe, expect, it } from 'vitest';
import { redactedJson, redactSecrets, redactValue } from '../../src/common/redact.js';

describe('redactSecrets', () => {
  it.each([
    ['Authorization: Bearer abc.def-123456', 'Authorization: Bearer [REDACTED]'],
    ['authorization=Basic dXNlcjpwYXNz', 'authorization=Basic [REDACTED]'],
    ['{"Authorization": "Bearer abcdefgh12345678"}', '{"Authorization": "Bearer [REDACTED]"}'],
    [
      'GET /search.json?q=cats&api_key=abc123&engine=google',
      'GET /search.json?q=cats&api_key=[REDACTED]&engine=google',
    ],
    ['OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234', 'OPENAI_API_KEY=[REDACTED]'],
    ['{"apiKey":"hunter2"}', '{"apiKey":"[REDACTED]"}'],
    ['{\\"api_key\\":\\"hunter2\\",\\"q\\":\\"x\\"}', '{\\"api_key\\":\\"[REDACTED]\\",\\"q\\":\\"x\\"}'],
    ['x-api-key: 0123456789', 'x-api-key: [REDACTED]'],
    ['my key is sk-abcdefghijklmnopqrstuvwx, keep it', 'my key is [REDACTED], keep it'],
    ['token ghp_abcdefghijklmnopqrstuvwxyz0123 here', 'token [REDACTED] here'],
    ['AKIAABCDEFGHIJKLMNOP', '[REDACTED]'],
    ['curl -H "authorization: Bearer tok_1234567890"', 'curl -H "authorization: Bearer [REDACTED]"'],
  ])('%s', (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it('leaves ordinary text alone', () => {
    const text = 'The capital of France is Paris; max_tokens=100 and the author is Jane.';
    expect(redactSecrets(text)).toBe(text);
  });
});

describe('redactValue / redactedJson', () => {
  it('replaces secret-named fields at any depth and redacts strings everywhere', () => {
    const value = {
      q: 'cats',
      headers: { Authorization: 'Bearer x', 'X-Api-Key': 'k' },
      nested: [{ password: 'p', note: 'sk-abcdefghijklmnopqrstuvwx' }],
    };
    expect(redactValue(value)).toEqual({
      q: 'cats',
      headers: { Authorization: '[REDACTED]', 'X-Api-Key': '[REDACTED]' },
      nested: [{ password: '[REDACTED]', note: '[REDACTED]' }],
    });
    expect(value.headers.Authorization).toBe('Bearer x');
    expect(redactedJson({ api_key: 'secret', n: 1 })).toBe('{"api_key":"[REDACTED]","n":1}');
  });
});
