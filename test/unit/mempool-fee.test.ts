/** txFee (src/store/mempool-effect.ts): what a mempool transaction pays, as the index stores it. */
import { expect, it } from 'vitest';
import { txFee } from '../../src/store/mempool-effect.js';
import { opReturn, p2wpkh, spendTx } from '../support/blocks.js';

const coins = (...values: bigint[]) => values.map((value) => ({ value }));

it('is the inputs minus every output, an OP_RETURN carrying value included', () => {
  const tx = spendTx(
    [],
    [
      { script: p2wpkh(), value: 600 },
      { script: opReturn(Buffer.from('fee')), value: 100 },
    ],
  );
  expect(txFee(coins(500n, 400n), tx)).toBe(200n);
  expect(txFee(coins(700n), tx)).toBe(0n);
});

it('is unknown (null) with an MWEB part, or when the outputs exceed the inputs', () => {
  expect(txFee(coins(1000n), spendTx([], [{ script: p2wpkh(), value: 600 }], { mweb: true }))).toBeNull();
  expect(txFee(coins(), spendTx([], [], { mweb: true }))).toBeNull();
  expect(txFee(coins(500n), spendTx([], [{ script: p2wpkh(), value: 600 }]))).toBeNull();
});
