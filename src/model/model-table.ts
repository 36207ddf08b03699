// Looks a model name up in a per-model data table: exact name first, then the longest entry it extends.
const separators = new Set(['-', ':', '@']);

/**
 * `gpt-4o-2024-08-06` finds `gpt-4o`, `llama3.1:8b` finds `llama3.1`, `openai/gpt-4o` finds `gpt-4o`.
 * A dot is not a separator, so `gpt-4.5-preview` does not fall back to `gpt-4`.
 */
export function lookupModel<Value>(table: Readonly<Record<string, Value>>, modelName: string): Value | undefined {
  // The scan reads every entry, and the guards ask every turn: each table remembers its answers (tables are read-only).
  let answers = remembered.get(table) as Map<string, Value | undefined> | undefined;
  if (answers === undefined) remembered.set(table, (answers = new Map()));
  if (answers.has(modelName)) return answers.get(modelName);
  const found = scan(table, modelName);
  if (answers.size < 256) answers.set(modelName, found);
  return found;
}

const remembered = new WeakMap<object, Map<string, unknown>>();

/**
 * `compute` remembered per model name (up to 64 names, the last one at hand): what a guard resolves for a model is
 * asked on every run or turn and changes only with the name. A throw is not remembered.
 */
export function perModelName<Value>(
  compute: (modelName: string | undefined) => Value,
): (modelName: string | undefined) => Value {
  const known = new Map<string | undefined, Value>();
  let last: { modelName: string | undefined; value: Value } | undefined;
  return (modelName) => {
    if (last !== undefined && last.modelName === modelName) return last.value;
    let value: Value;
    if (known.has(modelName)) value = known.get(modelName) as Value;
    else {
      value = compute(modelName);
      if (known.size < 64) known.set(modelName, value);
    }
    last = { modelName, value };
    return value;
  };
}

function scan<Value>(table: Readonly<Record<string, Value>>, modelName: string): Value | undefined {
  const name = modelName.trim().toLowerCase().replace(/^.*\//, '');
  if (Object.hasOwn(table, name)) return table[name];
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    const lowered = key.toLowerCase();
    if (lowered === name) return table[key];
    if (
      name.startsWith(lowered) &&
      separators.has(name[lowered.length] ?? '') &&
      (best === undefined || key.length > best.length)
    )
      best = key;
  }
  return best === undefined ? undefined : table[best];
}
