// `stageloop run [options] "TASK"`: parses the flags, starts the calculator's process, then loads the run (run-command.ts).
import { parseRunFlags } from './args.js';
import type { CommandModule } from './command.js';
import { environmentHelp } from './environment.js';

export const run: CommandModule = {
  async usage() {
    const { pipelineNames } = await import('../assemble.js');
    return runUsage(pipelineNames);
  },
  async run(argv, io) {
    const flags = parseRunFlags(argv);
    if (flags === 'help') return 'help';
    // The calculator's process starts first and loads mathjs while this one loads the engine, stages and model.
    const { CalculatorWorkerHost, defaultCalculatorLimits } = await import('../../src/tools/calculator-host.js');
    const calculatorHost = new CalculatorWorkerHost(defaultCalculatorLimits);
    calculatorHost.warm().catch(() => {}); // a load failure shows on the first calculation
    try {
      const { runCommand } = await import('./run-command.js');
      return await runCommand(flags, io, calculatorHost);
    } finally {
      await calculatorHost.close();
    }
  },
};

const runUsage = (pipelineNames: string[]) => `Usage: stageloop run [options] "TASK"

Model:
  --pipeline, -p NAME      ${pipelineNames.join(' | ')} (default react)
  --agent NAME             run an agent of stageloop.config.json: its pipeline, instructions and tools, calling
                           the agents it names as tools (docs/agents.md); "stageloop agents" lists them
  --provider NAME          openai | openai-responses | anthropic | offline (default STAGELOOP_PROVIDER, else openai
                           when OPENAI_API_KEY or OPENAI_BASE_URL is set, else offline; docs/models.md)
  --model, -m NAME         model name (default OPENAI_MODEL / ANTHROPIC_MODEL, or gpt-4o-mini on OpenAI)
  --base-url URL           the provider's endpoint (default OPENAI_BASE_URL / ANTHROPIC_BASE_URL); works without a key
  --offline                use the built-in offline model even when a key is set
  --max-parallel-steps N   plan-execute-replan: plan steps that may run at once (default 3; 1 = one after another)

Limits and guards (on by default; 0 turns one off, --no-guards all the defaults; docs/guards.md):
  --max-iterations N       iteration budget: at N the model must answer without tools (default: the pipeline's cap,
                           react 10, plan-execute-replan 24)
  --max-tokens N           token budget, input + output of the whole run (default: 80% of the model's context
                           window, 102400 for a model stageloop does not know); 0 for none
  --max-cost USD           cost budget, from the model price table (default: none)
  --timeout SECONDS        time limit; the call in flight is cut off at the deadline (default 600); 0 for none
  --budget-mode soft|hard|ask
                           soft (default): one forced tool-less answer after a budget is spent; hard: stop before a
                           call whose estimate would cross --max-tokens or --max-cost (docs/guards.md); ask: a spent
                           budget (the run's or the session's) asks at a terminal, as --ask-on-limit
  --guard injection[=flag|redact|block]
                           screen the task and tool results for prompt injection (default action: flag)
  --loop-limit N           refuse the Nth identical failing tool call in a row (same tool and arguments; asking
                           again after a refusal stops the run with loop_detected) (default 3); 0 for none
  --on-repeat refuse|ask   at that call: refuse it (default), or ask a person as for an approval (exit 4 when no
                           one is at the terminal; approve runs it once more, reject tells the model why)
  --context-budget TOKENS  prune old tool observations to keep each request under TOKENS (default: 80% of the
                           model's context window); 0 for none
  --no-guards              none of the defaults above (the iteration cap stays); limits given by flags still apply

Tools and models:
  --mcp-config FILE        MCP servers in the "mcpServers" shape (default: stageloop.config.json in this folder)
  --mcp NAME=COMMAND       one more MCP server for this run (stdio command, or NAME=URL for Streamable HTTP)
  --mcp-timeout SECONDS    how long an MCP server may stay silent during a call (default 30; a server's "timeout" wins)
  --output-schema FILE     a JSON Schema the final answer must match: the run prints the validated JSON value
                           (stopped with invalid_output when the model cannot make one after a repair)
  --context-file PATH      one more context file for the system prompt (besides AGENTS.md and STAGELOOP.md from
                           here up to the project root); repeatable (docs/context.md)
  --skills DIR             one more folder of NAME/SKILL.md skills (besides .stageloop/skills); repeatable
  --fallback-model NAME    a model on the same server to move to when the model fails (rate limit, 5xx, timeout);
                           repeatable; other servers go in the config file's "fallback" list

Recording:
  --store PATH             record the run in this SQLite file (default $STAGELOOP_HOME/stageloop.db, else
                           ./.stageloop/stageloop.db); the run id is printed at the start
  --no-store               do not record the run

Output:
  --json                   print exactly one JSON object on stdout
  --quiet, -q              print only the answer
  --events                 print every run event as a JSON line on stdout (docs/events.md) instead of the answer
  --verbose                print stack traces for errors
  --trace otlp|console     export spans over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT, default http://localhost:4318),
                           or print the span tree after the run
  --trace-content          record messages and tool arguments in spans (also STAGELOOP_TRACE_CONTENT=true)

Sessions:
  --session NAME           this run is a turn of session NAME: earlier turns, its summary and facts are in context
  --user ID                whose session it is (default "default"); two users' sessions never meet
  --session-max-tokens N   token budget of all the session's turns together: a turn that reaches it stops with
                           budget_session (exit 3; docs/sessions.md "Session budget")
  --session-max-cost USD   the same in US dollars, from the model price table

Approval:
  --approve-tools NAME,... calls to these tools wait for a person: asked at a terminal, else the run pauses (exit 4)
  --approve-all-tools      every tool call waits for a person
  --ask-on-limit           a spent budget asks at a terminal: extend it, finish now, or stop
  --taint-policy P         ask (default) | refuse | off: a write tool call after web or MCP content waits for approval, is refused, or runs

Exit codes: 0 completed, 3 stopped early (limit or guard), 1 failed, 130 cancelled, 2 usage or configuration error,
4 interrupted: waiting for approval (continue with stageloop approve / reject / resume).

Environment (flags win over it):
${environmentHelp()}`;
