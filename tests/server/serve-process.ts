// `stageloop serve` in a process of its own, through the CLI's main, so a test can send it SIGTERM.
import { main } from '../../app/cli/main.js';

process.exit(await main(['serve', ...process.argv.slice(2)]));
