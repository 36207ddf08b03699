// GuardConfigError: a guard was given options it cannot work with. Its message is one line a CLI can print as is.
import { StageloopError } from '../../src/common/stageloop-error.js';
export class GuardConfigError extends StageloopError {
  constructor(message: string) {
    super('config', message);
    this.name = 'GuardConfigError';
  }
}
