/**
 * Calls run one at a time in the order made: each starts once the one before it has settled, and its
 * outcome is its caller's alone (a failure never stops the calls after it). The indexer's writer calls
 * (indexer/serial-writer.ts) and each chain's feed polls in the API (src/api/live/hub.ts) keep order so.
 */
export type InOrder = <T>(call: () => Promise<T>) => Promise<T>;

export function inOrder(): InOrder {
  let last: Promise<unknown> = Promise.resolve();
  return (call) => {
    const result = last.then(call);
    last = result.catch(() => undefined);
    return result;
  };
}
