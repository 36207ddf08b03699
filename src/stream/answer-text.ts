// The answer's text apart from a tool call's preamble, for the Chat Completions stream (strings, which cannot take
// text back; textStream and the AI SDK stream stream text at once and retract it: full-stream.ts).
import type { RunEvent } from '../engine/stage.js';

export interface TextPiece {
  /** Text of the answer in the pieces the model streamed, to show as the reply. */
  answer?: string[];
  /** What a reasoning reply wrote before calling a tool: not the answer (a client may show it as reasoning). */
  preamble?: string;
}

/**
 * A reasoning (think) reply may write a sentence and then call a tool, which is known only when the reply ends: its
 * text is held until then, given as answer (in its pieces) when the reply has no tool call, and as preamble when it has.
 * Other calls that may answer (summarize) stream piece by piece.
 */
export function answerTextSplitter(): (event: RunEvent) => TextPiece | undefined {
  let held: string[] = [];
  return (event) => {
    if (event.type === 'text_delta') {
      if (!event.data.mayAnswer || event.data.text === '') return undefined;
      if (event.data.purpose !== 'think') return { answer: [event.data.text] };
      held.push(event.data.text);
      return undefined;
    }
    if (event.type === 'tool_call_delta' && event.data.purpose === 'think') {
      const preamble = held.join('');
      held = [];
      return preamble === '' ? undefined : { preamble };
    }
    if (event.type !== 'model_reply') return undefined;
    const pieces = held;
    held = [];
    if (pieces.length === 0) return undefined;
    return event.data.toolCalls.length === 0 ? { answer: pieces } : { preamble: pieces.join('') };
  };
}
