// GuardConfigError: a guard was given options it cannot work with. Its message is one line a CLI can print as is.
export class GuardConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GuardConfigError';
  }
}
