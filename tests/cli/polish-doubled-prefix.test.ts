// Polish: an argument error is printed with one `stageloop` prefix, never `stageloop: stageloop show ...`.
import { describe, expect, it } from 'vitest';
import { main } from '../../app/cli/main.js';

async function stderrOf(argv: string[]): Promise<{ code: number; text: string }> {
  let text = '';
  const sink = { write: (chunk: string) => ((text += chunk), true) } as NodeJS.WritableStream;
  const code = await main(argv, { stdout: sink, stderr: sink, env: {} });
  return { code, text };
}

describe('argument errors with a doubled stageloop: prefix', () => {
  it('a message that names its command is printed once, exit 2', async () => {
    const shown = await stderrOf(['show']);
    expect(shown.code).toBe(2);
    expect(shown.text).toBe('stageloop show needs a run id: list them with "stageloop runs"\n');
  });

  it('other messages keep the stageloop: prefix', async () => {
    const shown = await stderrOf(['no-such-command']);
    expect(shown.code).toBe(2);
    expect(shown.text).toMatch(/^stageloop: unknown command "no-such-command"/);
  });
});
