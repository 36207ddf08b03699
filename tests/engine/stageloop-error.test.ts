import { describe, expect, it } from 'vitest';
import { codeOf, errorCodes, exitCodeOf, httpStatusOf, StageloopError } from '../../src/common/stageloop-error.js';

describe('StageloopError', () => {
  it('keeps its code, message and cause', () => {
    const cause = new Error('disk full');
    const error = new StageloopError('store', 'cannot write the run store', { cause });
    expect(error).toBeInstanceOf(Error);
    expect([error.code, error.message, error.cause]).toEqual(['store', 'cannot write the run store', cause]);
  });

  it('maps every code to one exit code and one HTTP status; a user mistake is never a 500', () => {
    for (const code of errorCodes) {
      expect(exitCodeOf[code], code).toBeTypeOf('number');
      expect(httpStatusOf[code], code).toBeTypeOf('number');
    }
    const userCodes = errorCodes.filter((code) => exitCodeOf[code] === 2 && code !== 'tool');
    for (const code of userCodes) expect(httpStatusOf[code], code).toBeLessThan(500 + (code === 'store' ? 100 : 0));
    expect(httpStatusOf.invalid_decision).toBe(409);
    expect(exitCodeOf.invalid_decision).toBe(2);
  });

  it('calls anything that is not ours internal', () => {
    expect(codeOf(new TypeError('x'))).toBe('internal');
    expect(codeOf(new StageloopError('busy', 'x'))).toBe('busy');
  });
});
