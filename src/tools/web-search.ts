// webSearchTool: the `web_search` tool, Google results through SerpApi with ky (retries on 429/5xx, timeout, abort).
import ky, { isHTTPError, isTimeoutError } from 'ky';
import { z } from 'zod';
import { defineTool, type Tool } from './define-tool.js';
import { ToolFailure } from './tool-failure.js';
import { redactSecrets, withoutSecret } from '../common/redact.js';

export interface WebSearchOptions {
  /** Default: the SERPAPI_API_KEY environment variable, read once when the tool is created (never in a stage). */
  apiKey?: string;
  /** Where `search.json` lives. Default: SERPAPI_BASE_URL, else https://serpapi.com (proxies, tests). */
  baseUrl?: string;
  /** Per HTTP attempt. Default 10,000 ms. */
  timeoutMs?: number;
  /** Retries after a 408/429/5xx reply or a network error. Default 2. */
  retries?: number;
  /** First retry delay; it doubles at each retry. Default 500 ms. */
  retryDelayMs?: number;
  /** Longest wait between attempts, including a server's Retry-After. Default 5,000 ms. */
  maxRetryDelayMs?: number;
}

const parameters = z.strictObject({
  query: z
    .string()
    .trim()
    .min(1, 'query must not be empty')
    .max(500)
    .describe('What to search for, as you would type it into Google'),
  num_results: z.number().int().min(1).max(10).default(5).describe('How many results to return, 1 to 10 (default 5)'),
  location: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('Where the search should come from, e.g. "Austin, Texas, United States"'),
});

const organicResult = z.object({
  title: z.string().optional(),
  link: z.string().optional(),
  snippet: z.string().optional(),
  date: z.string().optional(),
});

const serpApiPayload = z.object({
  search_metadata: z.object({ status: z.string().optional() }).optional(),
  error: z.string().optional(),
  organic_results: z.array(organicResult).optional(),
});

// SerpApi reports "no results" through `error` while the search itself succeeded.
const NO_RESULTS = /hasn't returned any results|no results/i;

export function webSearchTool(options: WebSearchOptions = {}): Tool<typeof parameters> {
  const apiKey = (options.apiKey ?? process.env.SERPAPI_API_KEY ?? '').trim();
  const baseUrl = options.baseUrl ?? process.env.SERPAPI_BASE_URL ?? 'https://serpapi.com';
  const endpoint = new URL('search.json', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const retryDelayMs = options.retryDelayMs ?? 500;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
  const client = ky.create({
    timeout: options.timeoutMs ?? 10_000,
    retry: {
      limit: options.retries ?? 2,
      methods: ['get'],
      statusCodes: [408, 429, 500, 502, 503, 504],
      delay: (attempt) => retryDelayMs * 2 ** (attempt - 1),
      backoffLimit: maxRetryDelayMs,
      maxRetryAfter: maxRetryDelayMs,
    },
  });
  // Any text we build may quote the server or the URL: the key never leaves through a message.
  const redact = (text: string) => redactSecrets(withoutSecret(text, apiKey));

  return defineTool({
    name: 'web_search',
    effects: 'read',
    taints: true,
    description:
      'Search the web (Google) for current facts, news or pages you do not know. Returns numbered results with title, ' +
      'link, snippet and date when known. Use short, specific queries.',
    parameters,
    async execute(args, ctx) {
      if (!apiKey) {
        throw new ToolFailure(
          'web_search is not configured: set the SERPAPI_API_KEY environment variable (or pass apiKey to webSearchTool()).',
        );
      }
      const searchParams: Record<string, string> = { engine: 'google', q: args.query, api_key: apiKey };
      if (args.location) searchParams.location = args.location;
      let payload: z.infer<typeof serpApiPayload>;
      try {
        const body: unknown = await client.get(endpoint, { searchParams, signal: ctx.signal }).json();
        payload = parsePayload(body);
      } catch (error) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        throw await toFailure(error, redact);
      }
      if (payload.search_metadata?.status === 'Error' || (payload.error && !NO_RESULTS.test(payload.error))) {
        throw new ToolFailure(redact(`SerpApi error: ${payload.error ?? 'the search failed without a message'}`));
      }
      // Google ignores `num`, so the count is ours to apply.
      const results = (payload.organic_results ?? []).slice(0, args.num_results);
      return results.map(formatResult).join('\n\n');
    },
  });
}

function parsePayload(body: unknown): z.infer<typeof serpApiPayload> {
  const parsed = serpApiPayload.safeParse(body);
  if (!parsed.success) throw new ToolFailure('SerpApi returned a reply in an unexpected shape.');
  return parsed.data;
}

function formatResult(result: z.infer<typeof organicResult>, index: number): string {
  const lines = [`${index + 1}. ${result.title?.trim() || '(no title)'}`];
  if (result.link) lines.push(`   ${result.link}`);
  if (result.date) lines.push(`   Date: ${result.date}`);
  if (result.snippet) lines.push(`   ${result.snippet.trim()}`);
  return lines.join('\n');
}

/** Our own messages only: ky's error messages contain the request URL, and with it the key. */
async function toFailure(error: unknown, redact: (text: string) => string): Promise<ToolFailure> {
  if (error instanceof ToolFailure) return error;
  if (isTimeoutError(error))
    return new ToolFailure('SerpApi did not answer in time.', { kind: 'timeout', retryable: true });
  if (isHTTPError(error)) {
    const status = error.response.status;
    const detail = await serverMessage(error.response);
    const retryable = status === 408 || status === 429 || status >= 500;
    return new ToolFailure(redact(`SerpApi answered HTTP ${status}${detail ? `: ${detail}` : ''}.`), { retryable });
  }
  if (error instanceof SyntaxError)
    return new ToolFailure('SerpApi returned a reply that is not JSON.', { retryable: true });
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return new ToolFailure(`Could not reach SerpApi${typeof code === 'string' ? ` (${code})` : ''}.`, {
    retryable: true,
  });
}

async function serverMessage(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.json()) as { error?: unknown };
    return typeof body.error === 'string' ? body.error.slice(0, 500) : undefined;
  } catch {
    return undefined;
  }
}
