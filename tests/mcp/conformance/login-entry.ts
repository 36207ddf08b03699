// `stageloop mcp login` as a person uses it, driven by the official conformance suite's OAuth scenario server at
// argv[2]: the CLI prints the address to open, the "browser" (a fetch following redirects) approves, the tokens are
// saved; then `stageloop tools` reaches the server with them alone, and `stageloop mcp logout` forgets them.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const url = process.argv[2];
if (!url) {
  console.error('usage: login-entry.ts SERVER_URL');
  process.exit(2);
}
const cli = fileURLToPath(new URL('../../../bin/stageloop.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'stageloop-login-'));
const config = join(home, 'stageloop.config.json');
writeFileSync(config, JSON.stringify({ mcpServers: { demo: { url } } }));
const env = { ...process.env, STAGELOOP_HOME: home };

/** Runs the CLI; `onStderr` sees its error output as it comes. */
function stageloop(args: string[], onStderr: (text: string) => void = () => undefined) {
  const child = spawn(process.execPath, [cli, ...args], { env, cwd: home });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    onStderr(stderr);
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
}

let approved: Promise<unknown> | undefined;
const login = await stageloop(['mcp', 'login', 'demo', '--mcp-config', config], (stderr) => {
  const address = /^(https?:\/\/\S+)$/m.exec(stderr.split('open this address in a browser:')[1] ?? '')?.[1];
  if (address !== undefined && approved === undefined) approved = fetch(address);
});
await approved;
console.log('login', login.code, login.stdout.trim(), login.stderr.trim());
if (login.code !== 0 || !/^logged in to demo: \d+ tools? offered$/.test(login.stdout.trim())) process.exit(1);
const listed = await stageloop(['tools', '--json', '--mcp-config', config]);
console.log('tools', listed.code, listed.stderr.trim());
if (listed.code !== 0 || !listed.stdout.includes('"demo__')) process.exit(1);
const logout = await stageloop(['mcp', 'logout', 'demo']);
console.log('logout', logout.code, logout.stdout.trim());
if (logout.code !== 0 || logout.stdout.trim() !== 'logged out of demo') process.exit(1);
process.exit(0);
