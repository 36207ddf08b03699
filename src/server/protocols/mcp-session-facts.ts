// Session facts as MCP resources: `stageloop://sessions/{user}/{session}/facts` is what a session remembers (the facts
// `remember` kept, what `stageloop facts` shows) as JSON. The sessions of recorded runs are listed and completed.
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { sessionScope, type SessionStore } from '../../sessions/types.js';
import type { RunStore } from '../../store/types.js';

export interface SessionFactServices {
  store: RunStore;
  /** Opens (once) the store sessions are kept in; absent, no session resources are served. */
  sessions?: () => Promise<SessionStore>;
}

/** Recorded runs whose sessions are listed and completed. */
const searchedRuns = 200;
export const sessionFactsTemplate = 'stageloop://sessions/{user}/{session}/facts';

export function registerSessionFacts(server: McpServer, services: SessionFactServices): void {
  const { sessions, store } = services;
  if (sessions === undefined) return;
  // A session is known from the runs that were its turns (their input names it): newest first, each once.
  const known = async () => {
    const seen = new Map<string, { user: string; session: string }>();
    for (const run of await store.list({ limit: searchedRuns })) {
      const { session, user } = run.input as { session?: unknown; user?: unknown };
      if (typeof session !== 'string' || typeof user !== 'string') continue;
      seen.set(`${user}/${session}`, { user, session });
    }
    return [...seen.values()];
  };
  const starting = (values: string[], typed: string) => [...new Set(values)].filter((value) => value.startsWith(typed));
  server.registerResource(
    'session-facts',
    new ResourceTemplate(sessionFactsTemplate, {
      list: async () => ({
        resources: (await known()).map(({ user, session }) => ({
          uri: `stageloop://sessions/${user}/${session}/facts`,
          name: `facts of session ${session} (${user})`,
          mimeType: 'application/json',
        })),
      }),
      complete: {
        user: async (typed) =>
          starting(
            (await known()).map((each) => each.user),
            typed,
          ),
        session: async (typed, context) => {
          const user = context?.arguments?.user;
          const mine = (await known()).filter((each) => user === undefined || each.user === user);
          return starting(
            mine.map((each) => each.session),
            typed,
          );
        },
      },
    }),
    {
      title: "A session's facts",
      description:
        'What a session remembers (key, value, the run that set it, when) as JSON, as `stageloop facts` shows.',
      mimeType: 'application/json',
    },
    async (uri, { user, session }) => {
      // The names are checked as everywhere (no path characters); a bad one is the client's error.
      const scope = sessionScope(String(session), String(user));
      const facts = await (await sessions()).listFacts(scope);
      const text = JSON.stringify({ user: scope.user, session: scope.session, facts });
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text }] };
    },
  );
}
