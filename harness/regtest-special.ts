/**
 * One transaction with the outputs an address index must handle without an address, built with
 * bitcoinjs-lib (createrawtransaction only knows addresses and OP_RETURN data) and signed by the
 * node's wallet. The node takes them because the harness runs it with -acceptnonstdtxn=1.
 *
 * | output              | script                               | in Core's UTXO set?                 |
 * |---------------------|--------------------------------------|-------------------------------------|
 * | P2PK                | <33-byte key> OP_CHECKSIG            | yes (not the key's P2PKH address)   |
 * | bare 1-of-2 multisig| OP_1 <key> <key> OP_2 OP_CHECKMULTISIG | yes                               |
 * | OP_RETURN, 0 value  | OP_RETURN <data>                     | no (IsUnspendable)                  |
 * | OP_RETURN with value| OP_RETURN <data>                     | no: the coins are burnt             |
 * | 10,001-byte script  | OP_1 × 10,001                        | no: size > MAX_SCRIPT_SIZE          |
 * | 10,000-byte script  | OP_1 × 10,000                        | yes: the limit itself is allowed    |
 * | witness v2 / v16    | OP_n <program> (future versions)     | yes, and they have bech32m addresses |
 */
import { Transaction, address as baddress } from 'bitcoinjs-lib';
import { createHash } from 'node:crypto';
import type { ManifestAddress, SpecialKind, SpecialOutput } from './regtest-manifest.js';
import { feeFor, scriptOf, signAndSend, walletUtxos, type RegtestNode } from './regtest-wallet.js';

interface PlannedOutput {
  script: Buffer;
  sats: number;
  kind: SpecialKind | 'witness-unknown' | 'change';
  spendable: boolean;
}

function witnessProgramScript(version: number, program: Buffer): Buffer {
  // OP_1..OP_16 are 0x51..0x60; then a direct push of the program.
  return Buffer.concat([Buffer.from([0x50 + version, program.length]), program]);
}

export interface SpecialResult {
  txid: string;
  special: SpecialOutput[];
  /** Addresses of the future-witness-version outputs (owned by nobody). */
  witnessUnknown: ManifestAddress[];
}

export async function sendSpecialOutputs(node: RegtestNode, seed: number): Promise<SpecialResult> {
  const utxos = await walletUtxos(node);
  const funding = utxos.filter((u) => u.sats >= 300_000_000).sort((a, b) => b.sats - a.sats)[0];
  if (funding === undefined) throw new Error('no wallet coin of 3 LTC or more to fund the special outputs');
  const pubkey = async (): Promise<Buffer> => {
    const a = await node.cli<string>('getnewaddress', '', 'legacy');
    const info = await node.cli<{ pubkey: string }>('getaddressinfo', a);
    return Buffer.from(info.pubkey, 'hex');
  };
  const [k1, k2, k3] = [await pubkey(), await pubkey(), await pubkey()];
  const OP_CHECKSIG = 0xac;
  const outputs: PlannedOutput[] = [
    { kind: 'p2pk', script: Buffer.concat([Buffer.from([k1.length]), k1, Buffer.from([OP_CHECKSIG])]), sats: 50_000_000, spendable: true },
    {
      kind: 'bare-multisig',
      script: Buffer.concat([Buffer.from([0x51, k2.length]), k2, Buffer.from([k3.length]), k3, Buffer.from([0x52, 0xae])]),
      sats: 30_000_000,
      spendable: true,
    },
    { kind: 'op-return', script: Buffer.concat([Buffer.from([0x6a, 7]), Buffer.from('addrsum')]), sats: 0, spendable: false },
    { kind: 'op-return', script: Buffer.from('6a04deadbeef', 'hex'), sats: 100_000, spendable: false },
    { kind: 'oversized', script: Buffer.alloc(10_001, 0x51), sats: 200_000, spendable: false },
    { kind: 'max-size-script', script: Buffer.alloc(10_000, 0x51), sats: 150_000, spendable: true },
  ];
  const programs: [number, Buffer][] = [
    [2, createHash('sha256').update(`addrsum v2 ${seed}`).digest()],
    [16, Buffer.from('beef', 'hex')],
  ];
  const witnessUnknown: ManifestAddress[] = [];
  for (const [version, program] of programs) {
    const address = baddress.toBech32(program, version, 'rltc');
    const script = witnessProgramScript(version, program);
    // The node must agree with our encoding, or the address would test nothing.
    const nodeScript = await scriptOf(node, address);
    if (nodeScript !== script.toString('hex')) throw new Error(`node reads ${address} as ${nodeScript}`);
    witnessUnknown.push({ address, kind: 'witness-unknown', script: nodeScript, owner: 'none' });
    outputs.push({ kind: 'witness-unknown', script, sats: 1_000_000, spendable: true });
  }
  const changeAddress = await node.cli<string>('getnewaddress', '', 'bech32');
  const spent = outputs.reduce((s, o) => s + o.sats, 0);
  // ~20 kB of scripts: pay well above the relay floor of 10 sat/vB.
  const change = funding.sats - spent - feeFor(1, outputs.length) - 400_000;
  outputs.push({ kind: 'change', script: Buffer.from(await scriptOf(node, changeAddress), 'hex'), sats: change, spendable: true });

  const tx = new Transaction();
  tx.version = 2;
  tx.addInput(Buffer.from(funding.txid, 'hex').reverse(), funding.vout);
  for (const o of outputs) tx.addOutput(o.script, BigInt(o.sats));
  const txid = await signAndSend(node, tx.toHex());

  const special: SpecialOutput[] = [];
  outputs.forEach((o, vout) => {
    if (o.kind === 'change' || o.kind === 'witness-unknown') return;
    special.push({ kind: o.kind, txid, vout, script: o.script.toString('hex'), sats: o.sats, spendable: o.spendable });
  });
  return { txid, special, witnessUnknown };
}
