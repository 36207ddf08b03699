// Runs `stageloop worker` or `stageloop submit` through the CLI's main from the TypeScript sources (no build needed).
import { main } from '../../app/cli/main.js';

process.exit(await main(process.argv.slice(2)));
