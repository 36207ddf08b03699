// Preload (`node --import ./module-log.mjs`): appends the URL of every ES module the process loads to $MODULE_LOG.
import { register } from 'node:module';

register('./module-log-hooks.mjs', import.meta.url, { data: { logPath: process.env.MODULE_LOG } });
