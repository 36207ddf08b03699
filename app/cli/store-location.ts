// The CLI's --store flag, taken out of a command's arguments; where it leads is app/store.ts's to say.
import { storeNeedsValue as needsValue } from '../store.js';
import { StageloopError } from '../../src/common/stageloop-error.js';

/** Takes `--store PATH` / `--store=PATH` out of a command's arguments, so each command parses only its own flags. */
export function takeStoreFlag(argv: readonly string[]): { store?: string; rest: string[] } {
  const rest: string[] = [];
  let store: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--store') {
      const value = argv[index + 1];
      if (value === undefined || value.startsWith('-')) throw new StageloopError('usage', needsValue);
      store = value;
      index++;
    } else if (argument.startsWith('--store=')) {
      store = argument.slice('--store='.length);
      if (store === '') throw new StageloopError('usage', needsValue);
    } else {
      rest.push(argument);
    }
  }
  return store === undefined ? { rest } : { store, rest };
}
