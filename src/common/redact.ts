// Redaction shared by error messages, tool errors and trace content: API keys and Authorization values never leave the process.

const redacted = '[REDACTED]';

/** Secret-looking key names, as object keys or as `key=value` / `"key": "value"` inside text. */
const secretKeyName = String.raw`[\w-]*(?:api[-_]?key|access[-_]?token|auth[-_]?token|refresh[-_]?token|client[-_]?secret|secret[-_]?key|password)`;
const secretKey = new RegExp(`^(?:authorization|proxy-authorization|cookie|${secretKeyName})$`, 'i');

// `\\?` lets the separators and quotes be JSON-escaped, as in tool arguments nested inside a JSON string.
const separator = String.raw`(\\?["']?\s*[:=]\s*\\?["']?)`;
const value = String.raw`([^\s"'\\,;&}]+)`;

const textPatterns: Array<[RegExp, string]> = [
  // Authorization: Bearer abc / "authorization": "Basic abc" — keep the scheme, drop the credentials.
  [
    new RegExp(String.raw`\b((?:proxy-)?authorization)${separator}((?:bearer|basic|token|bot)\s+)?${value}`, 'gi'),
    `$1$2$3${redacted}`,
  ],
  [new RegExp(String.raw`\b(${secretKeyName})${separator}${value}`, 'gi'), `$1$2${redacted}`],
  [/\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, `$1${redacted}`],
  // Well-known key shapes, wherever they appear.
  [/\bsk-[A-Za-z0-9_-]{16,}/g, redacted],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, redacted],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, redacted],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, redacted],
  [/\bAKIA[0-9A-Z]{16}\b/g, redacted],
];

/** Replaces API keys, bearer tokens and Authorization values in free text with `[REDACTED]`. */
export function redactSecrets(text: string): string {
  let result = text;
  for (const [pattern, replacement] of textPatterns) result = result.replace(pattern, replacement);
  return result;
}

/** A deep copy of `value` with secret-named fields replaced and every string passed through redactSecrets. */
export function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) copy[key] = secretKey.test(key) ? redacted : redactValue(field);
    return copy;
  }
  return value;
}

/** JSON text of `value`, redacted: what content attributes hold. */
export function redactedJson(value: unknown): string {
  return JSON.stringify(redactValue(value)) ?? 'null';
}

/** Replaces each occurrence of a secret we hold (an API key) with `marker`; short values are left alone. */
export function withoutSecret(text: string, secret: string | undefined, marker = '[redacted]'): string {
  return secret !== undefined && secret.length >= 4 ? text.split(secret).join(marker) : text;
}
