// Every environment variable the CLI reads, with its meaning: `stageloop run --help` prints this list.
export const environmentVariables: ReadonlyArray<readonly [name: string, meaning: string]> = [
  ['OPENAI_API_KEY', 'bearer token for the model server (api.openai.com needs one)'],
  ['OPENAI_BASE_URL', 'OpenAI-compatible endpoint ending in /v1 (default https://api.openai.com/v1)'],
  ['OPENAI_MODEL', 'model name; required with OPENAI_BASE_URL (default gpt-4o-mini on OpenAI)'],
  ['AGENT_TEMPERATURE', "a number from 0 to 2 (default: the server's own)"],
  ['AGENT_TOOL_PROTOCOL', 'native | text (default native)'],
  ['AGENT_TOOL_CHOICE', 'send | omit (default send; omit for Ollama)'],
  ['SERPAPI_API_KEY', 'enables the web_search tool'],
  ['SERPAPI_BASE_URL', 'SerpApi endpoint (default https://serpapi.com)'],
  ['STAGELOOP_TRACE_CONTENT', 'true: record messages and tool arguments in spans'],
  ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTLP/HTTP base URL for --trace otlp (default http://localhost:4318)'],
  ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'full OTLP traces URL, instead of the endpoint + /v1/traces'],
  ['OTEL_EXPORTER_OTLP_TIMEOUT', 'ms one span export may take (also OTEL_EXPORTER_OTLP_TRACES_TIMEOUT; default 3000)'],
  ['OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', 'the same, for traces only; wins over OTEL_EXPORTER_OTLP_TIMEOUT'],
  ['OTEL_SERVICE_NAME', 'service name in traces (default stageloop)'],
  ['STAGELOOP_STORE', 'the store every command uses when --store is not given: a file, postgres:// or redis:// URL'],
  [
    'STAGELOOP_HOME',
    'folder of the default store file stageloop.db and of eval ledgers (evals/); default ./.stageloop',
  ],
  ['STAGELOOP_TOKEN', 'stageloop serve: the bearer token every API request must send (like --token)'],
  ['NO_COLOR', 'set: no dimmed progress lines on a terminal'],
];

export function environmentHelp(): string {
  const width = Math.max(...environmentVariables.map(([name]) => name.length)) + 2;
  return environmentVariables.map(([name, meaning]) => `  ${name.padEnd(width)}${meaning}`).join('\n');
}
