#!/usr/bin/env node
/** `addrsum-verify --chain BTC|LTC` (`npm run verify -- …`): exit 0 consistent, 1 differences, 2 unreadable. */
import { loadConfig } from '../config.js';
import { processIo } from '../cli/io.js';
import { main } from './verify-cli.js';

void main(process.argv.slice(2), () => loadConfig(), processIo).then((code) => {
  process.exitCode = code;
});
