/**
 * The request bench's floor (bench/request.ts starts it): Express 5 with the address route doing only
 * what no answer can skip — decode the address, one read of the index (ChainReader.summary, the API's
 * statement), the API's body and its JSON writer. No key, no limits, no request id, log line, metrics,
 * freshness check or ETag. Its req/s beside Express hello-world's is the most the API could reach
 * with the work it must do, whatever its own layers cost.
 *
 *   BENCH_DATA_DIR=<dir with ltc.sqlite> node --import tsx bench/request-floor.ts   (prints {"port":N})
 */
import express from 'express';
import { addressToScript } from '../src/chain/address.js';
import { chainParams } from '../src/chain/params.js';
import { summaryBody } from '../src/api/address-view.js';
import { sendJson } from '../src/api/respond.js';
import type { ChainHandle } from '../src/serving/chain-handle.js';
import { ChainReader } from '../src/store/sqlite/chain-reader.js';
import { SqliteIndexReader } from '../src/store/sqlite/engine.js';
import { chainDbPath } from '../src/store/paths.js';

const reader = ChainReader.open(chainDbPath(process.env.BENCH_DATA_DIR ?? '.', 'LTC'));
const params = chainParams('LTC', 'mainnet');
const handle: ChainHandle = { params, configured: true, acquire: () => ({ ok: true, source: new SqliteIndexReader(reader) }) };

const app = express();
app.get('/api/v1/:chain/address/:address', (req, res) => {
  const address = String(req.params.address);
  const decoded = addressToScript(params, address);
  const view = decoded.ok ? reader.summary(decoded.script) : null;
  if (!decoded.ok || view === null) {
    res.status(404).end();
    return;
  }
  sendJson(res, 200, summaryBody('LTC', handle, address, decoded.script, view, view.tipHeight, view.tipHash));
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
