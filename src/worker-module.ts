/**
 * Where a worker thread's module is, named from the module that starts it: under tsx (sources, tests)
 * it is a .ts file, and the thread needs tsx's loader registered first; from dist it is plain .js.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface WorkerModule {
  /** The worker module's URL. */
  readonly entry: string;
  /** tsx's register API for the thread to call before importing `entry`; null from dist. */
  readonly tsx: string | null;
}

/** `name` (no extension) beside the module at `from` (its import.meta.url). */
export function workerModule(from: string, name: string): WorkerModule {
  const extension = extname(fileURLToPath(from));
  return { entry: new URL(`./${name}${extension}`, from).href, tsx: extension === '.ts' ? import.meta.resolve('tsx/esm/api') : null };
}
