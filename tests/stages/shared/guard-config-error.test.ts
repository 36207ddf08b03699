import { describe, expect, it } from 'vitest';
import { GuardConfigError } from '../../../stages/shared/guard-config-error.js';
import { StageloopError } from '../../../src/common/stageloop-error.js';

describe('GuardConfigError', () => {
  it('is a StageloopError with the config code and the one line it was given', () => {
    const error = new GuardConfigError('budget: maxTokens must be a positive whole number, got 0');
    expect(error).toBeInstanceOf(StageloopError);
    expect(error.name).toBe('GuardConfigError');
    expect(error.code).toBe('config');
    expect(error.message).toBe('budget: maxTokens must be a positive whole number, got 0');
  });
});
