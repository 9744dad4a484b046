/**
 * A worker thread of the derivation pool (derivation-pool.ts): derives the slices it is sent and answers
 * each packed (derivation-job.ts). The last few wallets' derivers are kept, so the slices of one
 * wallet parse its input and derive its keys' fixed paths once per thread, not once per slice.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import { chainParams } from '../chain/params.js';
import { WalletDeriver } from '../wallet/derive.js';
import { WalletError } from '../wallet/errors.js';
import { parseWalletInput } from '../wallet/wallet-input.js';
import { packSlice, transferables, type SliceJob, type SliceReply } from './derivation-job.js';

/** Wallets in progress at once are few (the pool interleaves callers, not wallets of one caller). */
const KEPT_DERIVERS = 8;

const derivers = new Map<string, WalletDeriver>();

function deriverOf(job: SliceJob): WalletDeriver {
  const id = `${job.chain}/${job.network}/${job.range}/${job.maxRange}\n${job.input}`;
  let deriver = derivers.get(id);
  if (deriver) {
    derivers.delete(id);
  } else {
    deriver = new WalletDeriver(parseWalletInput(chainParams(job.chain, job.network), job.input), job);
    if (derivers.size >= KEPT_DERIVERS) derivers.delete(derivers.keys().next().value!);
  }
  derivers.set(id, deriver);
  return deriver;
}

function answer(job: SliceJob): { reply: SliceReply; transfer: ArrayBuffer[] } {
  try {
    const slice = packSlice(deriverOf(job).slice(job.from, job.to));
    return { reply: { id: job.id, slice }, transfer: transferables(slice) };
  } catch (err) {
    const code = err instanceof WalletError ? err.code : null;
    return { reply: { id: job.id, error: { code, message: err instanceof Error ? err.message : String(err) } }, transfer: [] };
  }
}

const port = parentPort as MessagePort;
port.on('message', (job: SliceJob) => {
  const { reply, transfer } = answer(job);
  port.postMessage(reply, transfer);
});
