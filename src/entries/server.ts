/** @module stageloop/server */
// 'stageloop/server': the HTTP API and web console on Hono (serverApp, listen), the run host and its event log. hono
// and @hono/node-server are optional packages: without them, importing this entry is one line naming what to install.
import { loadOptional, optionalParts } from '../common/optional-package.js';

export type { ServerAppOptions, PipelineInfo, DecisionsAdapter } from '../server/app.js';
export type { ListeningServer } from '../server/listen.js';
export {
  RunHost,
  type RunAssembly,
  type RunContinuation,
  type RunContinuer,
  type RunStarter,
} from '../server/run-host.js';
export { standaloneRunPage } from '../server/console/pages.js';

const [app, listening] = await loadOptional('stageloop/server', optionalParts.server, () =>
  Promise.all([import('../server/app.js'), import('../server/listen.js')]),
);

export const serverApp: typeof app.serverApp = app.serverApp;
export const listen: typeof listening.listen = listening.listen;
export const checkBind: typeof listening.checkBind = listening.checkBind;
export const isLoopback: typeof listening.isLoopback = listening.isLoopback;
