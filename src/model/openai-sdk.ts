// The openai SDK, loaded on the first request to a model server (not when the CLI or the offline model starts).
import type * as OpenAISdk from 'openai';

export type Sdk = typeof OpenAISdk;

let loaded: Sdk | undefined;
let loading: Promise<Sdk> | undefined;

export function loadOpenAISdk(): Promise<Sdk> {
  return (loading ??= import('openai').then((sdk) => (loaded = sdk)));
}

/** The SDK if a request has loaded it; until then no SDK error can exist, so error mapping needs no import. */
export function loadedOpenAISdk(): Sdk | undefined {
  return loaded;
}
