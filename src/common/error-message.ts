// The text of anything thrown: an Error's message (its name when the message is empty), a string as is, any other
// value as JSON where it can be, so a thrown object never reads "[object Object]".

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  try {
    return typeof error === 'string' ? error : JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
