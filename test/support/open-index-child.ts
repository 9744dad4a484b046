/** Child process: opens argv[2] with ChainReader and prints the outcome as one JSON line (run without the right to read it). */
import { ChainReader } from '../../src/store/sqlite/chain-reader.js';

try {
  ChainReader.open(process.argv[2] ?? '').close();
  console.log(JSON.stringify({ opened: true }));
} catch (err) {
  console.log(JSON.stringify({ code: (err as { code?: string }).code, message: (err as Error).message }));
}
