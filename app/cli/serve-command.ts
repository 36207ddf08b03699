// `stageloop serve`: its flags and usage, and the signals that stop it; the server itself is app/serve.ts's (the HTTP
// API and the web console over the CLI's store, runs started over HTTP ordinary recorded runs).
import type { Environment } from '../../src/model/config.js';
import type { CalculatorWorkerHost } from '../../src/tools/calculator-host.js';
import { checkAllowedHost, checkAllowedOrigin, checkToken } from '../../src/server/access-flags.js';
import { startServe, type ServeFlags } from '../serve.js';
import { parseFlags } from './args.js';
import type { CommandIo, CommandModule } from './command.js';
import { StageloopError } from '../../src/common/stageloop-error.js';

export const serveUsage = `Usage: stageloop serve [--port 8787] [--host 127.0.0.1] [--token T] [--store PATH]
                      [--allow-host NAME]... [--allow-origin URL]... [--trace otlp|console] [--no-recover]
                      [--mcp-config FILE]
Serves the HTTP API (/v1/...) and the web console (/) over the run store. Binds 127.0.0.1 unless --host is given;
any other address needs a token (--token or STAGELOOP_TOKEN), which every API request then sends as
Authorization: Bearer T. Requests must name the server by a loopback name or the bound address in their Host
header (--allow-host adds names); requests that change runs must send JSON and come from the server's own pages
(--allow-origin adds origins, which may also read the API with CORS). SIGTERM or Ctrl-C stops taking runs, lets
running ones reach a checkpoint, and exits. --trace traces every run it starts, as "stageloop run --trace" does
(a request's W3C traceparent makes its run part of the caller's trace). At start and every 10 s it continues the
store's runs whose process died (owner gone, lease expired; never one waiting for a person), each taken by one
server only; --no-recover leaves them to "stageloop resume". The agents of stageloop.config.json (or --mcp-config
FILE) are prompts on /mcp, and a POST /v1/runs may name one ("agent").`;

export function parseServeFlags(argv: readonly string[], env: Environment): ServeFlags | 'help' {
  const options = {
    port: { type: 'string' },
    host: { type: 'string' },
    token: { type: 'string' },
    store: { type: 'string' },
    'allow-host': { type: 'string', multiple: true },
    'allow-origin': { type: 'string', multiple: true },
    trace: { type: 'string' },
    'no-recover': { type: 'boolean' },
    'mcp-config': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const { values } = parseFlags('serve', argv, options, false);
  if (values.help) return 'help';
  const port = values.port === undefined ? 8787 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new StageloopError('usage', `--port must be a port number (0 to 65535), got "${values.port}"`);
  const token =
    values.token !== undefined
      ? checkToken(values.token, '--token')
      : env.STAGELOOP_TOKEN
        ? checkToken(env.STAGELOOP_TOKEN, 'STAGELOOP_TOKEN')
        : undefined;
  const access = {
    allowHosts: (values['allow-host'] ?? []).map(checkAllowedHost),
    allowOrigins: (values['allow-origin'] ?? []).map(checkAllowedOrigin),
  };
  const trace = values.trace;
  if (trace !== undefined && trace !== 'otlp' && trace !== 'console')
    throw new StageloopError('usage', `--trace must be "otlp" or "console", got "${trace}"`);
  return {
    ...(trace !== undefined && { trace }),
    ...(values['no-recover'] === true && { recover: false }),
    port,
    host: values.host ?? '127.0.0.1',
    ...(token !== undefined && { token }),
    ...(values.store !== undefined && { store: values.store }),
    ...(values['mcp-config'] !== undefined && { config: values['mcp-config'] }),
    ...access,
  };
}

/** Runs until SIGTERM or SIGINT, then drains; resolves with the exit code. */
export const serve: CommandModule = { usage: () => serveUsage, run: (argv, io) => serveCommand(argv, io) };

export async function serveCommand(
  argv: readonly string[],
  io: CommandIo,
  calculatorHost?: CalculatorWorkerHost,
): Promise<number | 'help'> {
  const flags = parseServeFlags(argv, io.env);
  if (flags === 'help') return 'help';
  const streams = io;
  const running = await startServe(flags, io.env, calculatorHost, (line) => streams.stderr.write(`${line}\n`));
  streams.stderr.write(`${running.notice}\n`);
  streams.stdout.write(
    `stageloop serve: listening on ${running.url} (console at ${running.url}/)${flags.token ? ', token required' : ''}\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      streams.stderr.write(`stageloop serve: ${signal}: taking no new runs, letting running ones reach a checkpoint\n`);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  await running.stop();
  streams.stderr.write('stageloop serve: stopped\n');
  return 0;
}
