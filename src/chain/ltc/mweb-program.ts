/**
 * Litecoin MWEB programs: `OP_9 <32>` peg-ins and `OP_8 <32>` HogAddr outputs. They are real UTXOs
 * (the HogEx spends them) but hold MWEB funds, not a user's balance, so no address may name them.
 */

const OP_8 = 0x58;
const OP_9 = 0x59;

export function isMwebProgram(script: Uint8Array): boolean {
  return script.length === 34 && (script[0] === OP_8 || script[0] === OP_9) && script[1] === 0x20;
}
