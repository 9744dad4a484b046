/** The engine contract (engine-contract.ts) on the SQLite engine, each index a file in a temporary directory. */
import { engineContract } from './engine-contract.js';
import { sqliteEngine } from './sqlite-engine.js';

engineContract('sqlite', sqliteEngine());
