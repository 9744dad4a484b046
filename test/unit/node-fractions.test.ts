/**
 * keepingFractions: the node's amounts keep the text the node wrote (where the runtime can see it), and
 * what the JSON-RPC client checks (the error's numeric code) stays a number.
 */
import { describe, expect, it } from 'vitest';
import { keepingFractions } from '../../src/serving/node-answers.js';

const sourceAware = typeof (JSON as unknown as { rawJSON?: unknown }).rawJSON === 'function';

describe('keepingFractions', () => {
  it.runIf(sourceAware)("writes amounts back as the node wrote them: '2.00000000', '0.00000010'", () => {
    const text = '{"result":{"value":2.00000000,"tiny":0.00000010,"n":3,"d":4.656542373906925e-10},"error":null,"id":1}';
    expect(JSON.stringify(keepingFractions(text))).toBe(text);
  });

  it('keeps integers and the error code numbers', () => {
    const read = keepingFractions('{"result":null,"error":{"code":-5,"message":"x"},"id":7}') as { error: { code: unknown }; id: unknown };
    expect(read.error.code).toBe(-5);
    expect(read.id).toBe(7);
  });
});
