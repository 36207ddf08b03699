// A process that starts the lingering test server through the process pool and exits without closing it:
// `node --import tsx tests/support/mcp-exit-probe.ts LOGFILE`. The pool's exit hook must stop the server.
import { mcpTools } from '../../src/tools/mcp/index.js';
import { stdioTestServer } from './mcp-servers.js';

await mcpTools(stdioTestServer(process.argv[2]!, 'test', ['--linger']));
process.exit(0);
