/**
 * How the Electrum methods reach an index (src/electrum/index/access.ts): a read failing for the index's
 * own reason (what the chain handle's failed() recognizes: a damaged file, a database overloaded or out
 * of reach) is answered SERVER_BUSY (-102) with that reason, as HTTP answers 503; any other failure is
 * left as it is (the session's internal error, logged as a bug).
 */
import { describe, expect, it } from 'vitest';
import type { ChainHandle } from '../../src/serving/chain-handle.js';
import { chainParams } from '../../src/chain/params.js';
import { indexAccess, type ElectrumIndex } from '../../src/electrum/index/access.js';
import { RpcError } from '../../src/electrum/wire.js';

const OVERLOADED = 'its index database is overloaded (every connection busy); retry shortly';

function handleOver(source: Partial<ElectrumIndex>): ChainHandle {
  const reads = ['status', 'keyViews', 'scriptTxs', 'utxoPage', 'headers', 'txBlock', 'outspends'];
  const feed = { bounds: async () => null, since: async () => [] };
  const full = { ...Object.fromEntries(reads.map((k) => [k, async () => null])), feed, ...source };
  return {
    params: chainParams('LTC', 'regtest'),
    configured: true,
    acquire: () => ({ ok: true, source: full as never }),
    failed: (err) => (err instanceof Error && err.message === 'pool wait' ? { reason: OVERLOADED, damaged: false } : null),
  };
}

describe('Electrum index access', () => {
  it("answers SERVER_BUSY with the index's reason when a read fails for it, and leaves other failures alone", async () => {
    const access = indexAccess(
      handleOver({
        keyViews: async () => {
          throw new Error('pool wait');
        },
        headers: async () => {
          throw new TypeError('a bug');
        },
      }),
    );
    const busy = await access()
      .keyViews([Buffer.alloc(20)], false)
      .catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(RpcError);
    expect((busy as RpcError).code).toBe('SERVER_BUSY');
    expect((busy as RpcError).message).toBe(`the index cannot be read right now (${OVERLOADED}); retry shortly`);
    await expect(access().headers(0, 1)).rejects.toThrow(TypeError);
  });

  it('passes results through, one guard per source', async () => {
    const access = indexAccess(handleOver({ txBlock: async () => ({ height: 7, hash: Buffer.alloc(32), position: 1, txNum: 9 }) }));
    expect(await access().txBlock(Buffer.alloc(32))).toEqual({ height: 7, hash: Buffer.alloc(32), position: 1, txNum: 9 });
    expect(access()).toBe(access());
    // The feed (an object of reads) is the source's own.
    expect(await access().feed.since(0, 10)).toEqual([]);
  });
});
