// `stageloop run --events`: every run event as one JSON line on stdout, for a program to read as the run goes.
import type { RunEvent } from '../../src/engine/stage.js';
import { terminalSafeJson } from './terminal-text.js';

export function eventLines(stdout: NodeJS.WritableStream): (event: RunEvent) => void {
  // JSON text holds no raw newline, so each event is exactly one line.
  return (event) => void stdout.write(`${terminalSafeJson(event)}\n`);
}
