// The text of anything thrown: an Error's message (its name when the message is empty), a string as is, any other
// value as JSON where it can be, so a thrown object never reads "[object Object]". It never throws itself: a value
// whose getters, toString or toJSON throw (or a revoked Proxy) still gets a line of text.

export function messageOf(error: unknown): string {
  try {
    if (error instanceof Error) {
      const message: unknown = error.message;
      if (typeof message === 'string' && message !== '') return message;
      return String(error.name || 'Error');
    }
    if (typeof error === 'string') return error;
    return JSON.stringify(error, bigintAsText) ?? String(error);
  } catch {
    try {
      return String(error);
    } catch {
      return `a thrown ${typeof error} that cannot be turned into text`;
    }
  }
}

function bigintAsText(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value;
}

/** Whether a thrown value is an Error of this name, without letting a hostile value throw. */
export function isErrorNamed(error: unknown, name: string): boolean {
  try {
    return error instanceof Error && error.name === name;
  } catch {
    return false;
  }
}
