/**
 * JSON parsing that keeps the node's decimal numbers as their exact text.
 *
 * Bitcoin Core writes every amount with ValueFromAmount (src/core_write.cpp): a JSON number literal with
 * exactly 8 decimals, e.g. `12.49998370`. JSON.parse would turn that into the nearest double, and
 * getting satoshis back from a double is only provably exact below 2^26 coins (where half an ulp is
 * < 0.5e-8); Litecoin's supply goes to 8.4e7. So callers that need amounts ask for the text instead
 * and convert it with parseCoins. Node 20 has no JSON.parse source-text access, hence this rewrite.
 */

// A JSON string (skipped whole, so digits inside strings are never touched), or a number literal with a
// fraction or an exponent. Integers stay numbers: heights, counts and confirmations are exact anyway.
const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+(?:[eE][+-]?\d+)?|[eE][+-]?\d+)/g;

/** JSON.parse, except that every non-integer number literal becomes a string holding its exact text. */
export function parseJsonDecimalsAsText(text: string): unknown {
  const rewritten = text.replace(TOKENS, (token) => (token.startsWith('"') ? token : `"${token}"`));
  return JSON.parse(rewritten) as unknown;
}
