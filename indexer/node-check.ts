/**
 * The start-up check that the node is the configured chain and network: its getblockchaininfo `chain`
 * and its genesis hash must be the ones the chain module names for that network.
 */
import { chainParams, type ChainCode, type NetworkName } from '../src/chain/params.js';
import type { BlockSource } from './block-source.js';
import type { ChainInfo } from '../src/node/node-client.js';
import { CodedError } from '../src/coded-error.js';

export class NodeMismatch extends CodedError<'NODE_MISMATCH'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('NODE_MISMATCH', message, options);
  }
}

/**
 * Refuses to index a node of another chain or network: its blocks would parse fine and silently fill
 * the database with the wrong coin's balances. Checked once at start (and the genesis hash settles it).
 */
export async function checkNode(
  chain: ChainCode,
  network: NetworkName,
  info: Pick<ChainInfo, 'chain'>,
  source: Pick<BlockSource, 'getBlockHash'>,
): Promise<void> {
  const params = chainParams(chain, network);
  // getblockchaininfo's `chain` (Core's ChainTypeToString): main, test, testnet4, signet, regtest.
  if (info.chain !== params.nodeChain) {
    throw new NodeMismatch(
      `the node runs chain "${info.chain}" but ${chain} is configured for ${network} ` +
        `(set ADDRSUM_${chain}_NETWORK or point ADDRSUM_${chain}_RPC_URL at a ${params.label} node)`,
    );
  }
  const genesis = await source.getBlockHash(0);
  if (genesis !== params.genesisHash) {
    throw new NodeMismatch(
      `the node's genesis block ${genesis} is not ${params.label}'s (${params.genesisHash}): ` +
        `is ADDRSUM_${chain}_RPC_URL pointing at the other coin's node?`,
    );
  }
}
