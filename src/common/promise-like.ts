// One test for "is this something to await": a native promise first (the common case, and the cheapest check),
// then any object or function with a `then` method, as `await` itself would treat it.

/** `body`'s value, or a rejected promise when it throws: whoever awaits it sees a synchronous throw as a failure. */
export function rejectingThrows<Value>(body: () => Value): Value | Promise<never> {
  try {
    return body();
  } catch (error) {
    return Promise.reject(error);
  }
}

export function isPromiseLike<Value>(value: Value | PromiseLike<Value>): value is PromiseLike<Value> {
  if (value instanceof Promise) return true;
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
