// Text from a model, tool or server, made safe to print on a terminal: no control sequence survives.
import { withInvokedName } from './command-name.js';

// ESC sequences (CSI, OSC, DCS/SOS/PM/APC, two-character), C1 controls, and C0 controls but tab and newline.
// Each alternative starts at a fixed character and never backtracks, so the scan stays linear.
const controlSequences =
  /\u001b\[[0-?]*[ -/]*[@-~]?|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[PX^_][^\u001b]*(?:\u001b\\)?|\u001b[ -/]*[0-~]?|[\u0080-\u009f]|[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** Removes escape sequences and control characters (a window title, a screen clear, a fake green line), keeping tabs and newlines. */
export function terminalSafe(text: string): string {
  return text.replace(controlSequences, '');
}

/** JSON for a terminal: JSON.stringify leaves DEL and the C1 controls raw, so they are escaped too. */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\u009f]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** One error line: `stageloop: message`, with no second prefix when the message already names its command. */
export function errorLine(message: string): string {
  return `${/^stageloop /.test(message) ? '' : 'stageloop: '}${terminalSafe(withInvokedName(message))}\n`;
}
