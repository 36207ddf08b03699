import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useLoopbackServer } from '../support/loopback-model.js';
import { runCli } from '../support/run-cli.js';

let folder: string | undefined;
afterEach(() => folder && rmSync(folder, { recursive: true, force: true }));
const schemaFile = (schema: unknown) => {
  folder = mkdtempSync(join(tmpdir(), 'stageloop-schema-'));
  const file = join(folder, 'schema.json');
  writeFileSync(file, typeof schema === 'string' ? schema : JSON.stringify(schema));
  return file;
};
const city = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'number' } },
  required: ['city', 'population'],
  additionalProperties: false,
};

describe('stageloop run --output-schema', () => {
  const loopback = useLoopbackServer();
  const env = () => ({ OPENAI_BASE_URL: loopback.server.url, OPENAI_MODEL: 'test-model' });

  it('prints the final answer as the JSON value the schema asked for; --json carries it as output', async () => {
    const file = schemaFile(city);
    loopback.server
      .replyWith({ content: 'Paris, with about 2.1 million people.' })
      .replyWith({ content: '{"city":"Paris","population":2100000}' });
    const run = await runCli(
      ['run', '-q', '--output-schema', file, 'Which city is the capital of France, and how many live there?'],
      env(),
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ city: 'Paris', population: 2_100_000 });
    expect(loopback.server.lastBody!.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'final_output' },
    });

    loopback.server.replyWith({ content: 'Paris.' }).replyWith({ content: '{"city":"Paris","population":2100000}' });
    const json = await runCli(['run', '--json', '--output-schema', file, 'Capital of France?'], env());
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: 'completed',
      answer: 'Paris.',
      output: { city: 'Paris', population: 2_100_000 },
    });
  });

  it('an answer that cannot be made valid stops the run with invalid_output (exit 3)', async () => {
    const file = schemaFile(city);
    loopback.server
      .replyWith({ content: 'Paris.' })
      .replyWith({ content: '{"city":"Paris"}' })
      .replyWith({ content: 'no idea' });
    const run = await runCli(['run', '--json', '--output-schema', file, 'Capital of France?'], env());
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'stopped', stopReason: { kind: 'invalid_output' } });
  });

  it('a file that is not JSON is one line, exit 2', async () => {
    const run = await runCli(['run', '--output-schema', schemaFile('{ not json'), 'hi'], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^stageloop: --output-schema .*schema\.json: .*: give a JSON Schema file/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});
