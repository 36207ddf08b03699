// A run's model requests as the journal keeps them: each shares a prefix with the previous one of its lane.
import type { JsonObject, JsonValue } from '../common/json.js';

/**
 * Model requests repeat the conversation so far: each is stored as how many messages it shares with the previous
 * one plus the new ones, so a long run's journal grows with the conversation, not with its square. Shared means the
 * very same message objects: a stage replaces a message to change it, never edits it in place (prune does so), so
 * recording a request costs no JSON text of the conversation.
 */
export class MessageLog {
  /**
   * The previous request's messages, per lane: the live objects while recording, their copies when read back. A
   * plan step running beside others has its own lane (its stage reads "think#b"), so the steps' interleaving
   * does not matter; everything else shares lane "".
   */
  private readonly previous = new Map<string, readonly JsonValue[]>();

  compress(request: JsonObject, stage: string | null = null): JsonObject {
    const messages = (request.messages ?? []) as JsonValue[];
    const lane = laneOf(stage);
    const previous = this.previous.get(lane) ?? [];
    let prefix = 0;
    while (prefix < messages.length && prefix < previous.length && messages[prefix] === previous[prefix]) prefix++;
    // A copy of the list (not of its messages): a stage may hand over the state's own list and add to it later.
    this.previous.set(lane, messages.slice());
    return { ...request, messages: messages.slice(prefix), prefix };
  }

  /** The whole request of a stored one, in journal order (per lane). */
  expand(stored: JsonObject, stage: string | null = null): JsonObject {
    const whole = this.preview(stored, stage);
    this.previous.set(laneOf(stage), whole.messages as JsonValue[]);
    return whole;
  }

  /** The whole request, without moving on (to compare it, or to show a divergence). */
  preview(stored: JsonObject, stage: string | null = null): JsonObject {
    const prefix = typeof stored.prefix === 'number' ? stored.prefix : 0;
    const { prefix: _prefix, ...rest } = stored;
    return {
      ...rest,
      messages: (this.previous.get(laneOf(stage)) ?? [])
        .slice(0, prefix)
        .concat((stored.messages ?? []) as JsonValue[]),
    };
  }
}

/** "think#b" is plan step b's lane; any other stage is lane "". */
function laneOf(stage: string | null): string {
  const mark = stage === null ? -1 : stage.indexOf('#');
  return mark === -1 ? '' : stage!.slice(mark);
}
