// prune's quick check, a helper of prune.ts: an upper bound of a request's tokens without the tokenizer, counting only what changed since the last turn; its own file so prune.ts holds the pruning.
import type { StageContext } from '../../src/engine/stage.js';
import type { ToolBox } from '../../src/engine/tool-port.js';
import type { ChatMessage } from '../../src/model/types.js';
import { messageOverheadTokens, replyPrimingTokens } from '../../src/model/token-count.js';

const definitionChars = new WeakMap<object, number>();

/**
 * What tokenCeiling counted in a messages list, kept on the list itself under a symbol: JSON and structuredClone skip
 * it, so it never reaches the saved state, and a stage that replaces the list starts a fresh count.
 */
interface CeilingMemo {
  /** The messages counted, in order: a message replaced, removed or inserted since is a full recount. */
  counted: ChatMessage[];
  characters: number;
  overhead: number;
  /** The tool definitions last counted (the registry hands out a fresh array each time) and their characters. */
  definitions: readonly object[];
  definitionCharacters: number;
}
const ceilingMemo = Symbol('prune-ceiling');
type MemoizedMessages = ChatMessage[] & { [ceilingMemo]?: CeilingMemo };

/**
 * An upper bound of the request's tokens without the tokenizer: o200k never makes more tokens than UTF-8 bytes, and a
 * UTF-16 unit is at most 3 bytes; each message adds its overhead. Only messages added since the last turn are read:
 * the list's earlier messages are checked to be the same objects (stages append messages and replace them, they do
 * not edit one in place once it is sent).
 */
export function tokenCeiling(messages: MemoizedMessages, ctx: StageContext): number {
  let memo = messages[ceilingMemo];
  if (memo === undefined || !startsWith(messages, memo.counted)) {
    memo = { counted: [], characters: 0, overhead: replyPrimingTokens, definitions: [], definitionCharacters: 0 };
    // Not enumerable, so deep comparisons (toEqual, assert.deepStrictEqual) of the list do not see it either; a frozen list is counted afresh each turn.
    if (Object.isExtensible(messages))
      Object.defineProperty(messages, ceilingMemo, {
        value: memo,
        configurable: true,
        writable: true,
        enumerable: false,
      });
  }
  const counted = memo.counted;
  for (let index = counted.length; index < messages.length; index++) {
    const message = messages[index]!;
    counted.push(message);
    memo.characters += message.content.length;
    memo.overhead += messageOverheadTokens;
    if (message.role === 'tool') memo.characters += message.name.length;
    else if (message.role === 'assistant' && message.toolCalls !== undefined) {
      for (const call of message.toolCalls) {
        memo.characters += call.name.length + call.arguments.length;
        memo.overhead += messageOverheadTokens;
      }
    }
  }
  // The same definitions as last turn (element by element) are not measured again.
  countDefinitions(memo, ctx.deps.tools);
  return (memo.characters + memo.definitionCharacters) * 3 + memo.overhead;
}

function countDefinitions(memo: CeilingMemo, tools: ToolBox | undefined): void {
  const definitions = tools?.definitions() ?? [];
  if (definitions.length !== memo.definitions.length || !startsWith(definitions, memo.definitions)) {
    let characters = 0;
    for (const definition of definitions) {
      let size = definitionChars.get(definition);
      if (size === undefined) definitionChars.set(definition, (size = JSON.stringify(definition).length + 1));
      characters += size;
    }
    memo.definitions = definitions;
    memo.definitionCharacters = characters;
  }
}

/** `list` starts with the objects of `prefix`, the same ones in the same order. */
function startsWith(list: readonly object[], prefix: readonly object[]): boolean {
  if (list.length < prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) if (list[index] !== prefix[index]) return false;
  return true;
}
