/** Script facts that decide whether an output can ever be a balance. Pure; no address logic here. */

const OP_RETURN = 0x6a;
const OP_8 = 0x58;
const OP_9 = 0x59;

/** Bitcoin Core's MAX_SCRIPT_SIZE: a longer scriptPubKey can never be spent. */
export const MAX_SCRIPT_SIZE = 10_000;

/**
 * Bitcoin Core's CScript::IsUnspendable(): such outputs never enter the UTXO set (AddCoin skips them),
 * so they are never part of any balance.
 */
export function isUnspendable(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === OP_RETURN) || script.length > MAX_SCRIPT_SIZE;
}

/**
 * Litecoin MWEB programs: `OP_9 <32>` peg-ins and `OP_8 <32>` HogAddr outputs. They are real UTXOs
 * (the HogEx spends them) but belong to no address; no address string ever maps to them.
 */
export function isMwebProgram(script: Uint8Array): boolean {
  return script.length === 34 && (script[0] === OP_8 || script[0] === OP_9) && script[1] === 0x20;
}
