// The owner tests of crash-owners.ts on SQLite.
import { describeOwners } from './crash-owners.js';

describeOwners('sqlite');
