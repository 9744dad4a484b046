/** Script facts that decide whether an output can ever be a balance. Pure; no address logic here. */

const OP_RETURN = 0x6a;

/** Bitcoin Core's MAX_SCRIPT_SIZE: a longer scriptPubKey can never be spent. */
export const MAX_SCRIPT_SIZE = 10_000;

/**
 * Bitcoin Core's CScript::IsUnspendable(): such outputs never enter the UTXO set (AddCoin skips them),
 * so they are never part of any balance.
 */
export function isUnspendable(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === OP_RETURN) || script.length > MAX_SCRIPT_SIZE;
}
