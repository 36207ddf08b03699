import { describe, expect, it } from 'vitest';
import {
  codeOf,
  errorCodes,
  exitCodeOf,
  httpStatusOf,
  isStageloopError,
  StageloopError,
} from '../../src/common/stageloop-error.js';

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

  it("knows an error made by another copy of the module (the CLI's bundle beside the package's files) by its code", async () => {
    // The compiled copy in dist/ (the tests' global set-up builds it) is a second module instance of the same class.
    const compiled = '../../dist/src/common/stageloop-error.js';
    const other = (await import(compiled)) as typeof import('../../src/common/stageloop-error.js');
    expect(other.StageloopError).not.toBe(StageloopError);
    const error = new other.StageloopError('config', 'x', { hint: 'pass --y' });
    expect(error instanceof StageloopError).toBe(false);
    expect([codeOf(error), isStageloopError(error) && error.hint]).toEqual(['config', 'pass --y']);
    expect(codeOf(Object.assign(new Error('x'), { code: 'config' }))).toBe('internal');
  });
});
