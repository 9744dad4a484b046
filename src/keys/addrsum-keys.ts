#!/usr/bin/env node
/** `addrsum-keys` (`npm run keys -- …`): create, list and revoke API keys. */
import { loadConfigOrExit } from '../config.js';
import { processIo } from '../cli/io.js';
import { main } from './cli.js';

void main(process.argv.slice(2), () => loadConfigOrExit(), processIo).then((code) => {
  process.exitCode = code;
});
