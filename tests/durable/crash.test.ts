// The crash test on SQLite: every scenario of crash-scenarios.ts, at least 30 kills over the file.
import { allScenarios, describeCrashes } from './crash-scenarios.js';

describeCrashes('sqlite', allScenarios, { kills: 30, resumed: 10 });
