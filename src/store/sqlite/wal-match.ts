/**
 * Whether the `-wal` beside an index belongs to it. SQLite cannot tell: it replays whatever WAL lies
 * next to a file, so an older index restored by rename beside a newer file's WAL is read as a mixture
 * of both (an old balance under a new tip row). The indexer makes it tellable: every transaction that
 * moves the tip also raises the file's generation (SQLite's `user_version`, in the header page), so
 * page 1 is in every such WAL transaction and carries its generation.
 *
 * A WAL cycle starts from a fully checkpointed file and only ever moves the file forward along it, so
 * the file's own generation lies in [first − 1, last], where first and last are the generations of the
 * first and the last committed page-1 frames of the WAL's current cycle. A file outside that range was
 * not the one the WAL was written on. A copy of the file restored from inside the cycle reads as the
 * WAL's newest state, which is whole: every page the cycle wrote comes from the WAL, every other page is
 * the same (not so for a VACUUM INTO rebuild, whose pages are laid out anew: docs/restore.md).
 *
 * Only frame headers and a few bytes of page 1 are read (the WAL can be hundreds of MiB). The writer may
 * append, checkpoint or restart the WAL meanwhile; the WAL header is read before and after, and a check
 * that saw the header change is made again.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { isSqliteHeader, readHead } from './file-header.js';

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
/** Where SQLite keeps `user_version` in the database header (page 1). */
const USER_VERSION_OFFSET = 60;
/**
 * Frames looked at from each end of the WAL for a page-1 frame. SQLite writes a transaction's pages in
 * page order, so page 1 normally opens it; a check that finds none within this many says nothing.
 */
const SCAN_FRAMES = 4096;
const ATTEMPTS = 3;

interface WalHeader {
  pageSize: number;
  salt1: number;
  salt2: number;
  /** The header bytes, to tell a WAL that changed while it was read. */
  raw: string;
}

/** Generations of the main file and of its WAL's current cycle; null where there is nothing to compare. */
export interface WalGenerations {
  file: number;
  first: number;
  last: number;
}

function readAt(fd: number, length: number, position: number): Buffer | null {
  const buf = Buffer.alloc(length);
  return readSync(fd, buf, 0, length, position) === length ? buf : null;
}

function walHeader(fd: number): WalHeader | null {
  const h = readAt(fd, WAL_HEADER_BYTES, 0);
  if (!h) return null;
  const magic = h.readUInt32BE(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return null;
  return { pageSize: h.readUInt32BE(8), salt1: h.readUInt32BE(16), salt2: h.readUInt32BE(20), raw: h.toString('hex') };
}

/** The frames of the current cycle: a prefix of the file whose frame salts are the header's. */
class WalFrames {
  readonly frameBytes: number;
  readonly count: number;

  constructor(
    private readonly fd: number,
    private readonly header: WalHeader,
  ) {
    this.frameBytes = FRAME_HEADER_BYTES + header.pageSize;
    const total = Math.floor((fstatSync(fd).size - WAL_HEADER_BYTES) / this.frameBytes);
    // Frames of older cycles follow the current ones (the WAL is kept, not truncated): find the first one
    // by bisection, since the current cycle's frames are exactly a prefix.
    let lo = 0;
    let hi = Math.max(total, 0);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.frame(mid)) lo = mid + 1;
      else hi = mid;
    }
    this.count = lo;
  }

  /** Page number and commit size of frame `i`, or null when it is not of this cycle. */
  frame(i: number): { page: number; commit: boolean } | null {
    const h = readAt(this.fd, FRAME_HEADER_BYTES, WAL_HEADER_BYTES + i * this.frameBytes);
    if (!h || h.readUInt32BE(8) !== this.header.salt1 || h.readUInt32BE(12) !== this.header.salt2) return null;
    return { page: h.readUInt32BE(0), commit: h.readUInt32BE(4) !== 0 };
  }

  generationAt(i: number): number | null {
    const b = readAt(this.fd, 4, WAL_HEADER_BYTES + i * this.frameBytes + FRAME_HEADER_BYTES + USER_VERSION_OFFSET);
    return b ? b.readUInt32BE(0) : null;
  }

  firstGeneration(): number | null {
    for (let i = 0; i < Math.min(this.count, SCAN_FRAMES); i++) if (this.frame(i)?.page === 1) return this.generationAt(i);
    return null;
  }

  /** The generation of the last page-1 frame at or before the last commit frame (a torn tail is not committed). */
  lastGeneration(): number | null {
    let committed = false;
    for (let i = this.count - 1; i >= Math.max(0, this.count - SCAN_FRAMES); i--) {
      const f = this.frame(i);
      if (!f) return null;
      committed ||= f.commit;
      if (committed && f.page === 1) return this.generationAt(i);
    }
    return null;
  }
}

function fileGeneration(path: string): number | null {
  const read = readHead(path, 100);
  return read && isSqliteHeader(read.head) ? read.head.readUInt32BE(USER_VERSION_OFFSET) : null;
}

type Reading = { stable: false } | { stable: true; generations: WalGenerations | null };

function readOnce(path: string, wal: number): Reading {
  const before = walHeader(wal);
  if (!before) return { stable: true, generations: null };
  const file = fileGeneration(path);
  const frames = new WalFrames(wal, before);
  const first = frames.firstGeneration();
  const last = frames.lastGeneration();
  if (walHeader(wal)?.raw !== before.raw) return { stable: false };
  if (file === null || first === null || last === null) return { stable: true, generations: null };
  return { stable: true, generations: { file, first, last } };
}

/** The generations to compare, or null when there is no WAL (or nothing in it) to compare with. */
export function walGenerations(path: string): WalGenerations | null {
  let wal: number;
  try {
    wal = openSync(`${path}-wal`, 'r');
  } catch {
    return null;
  }
  try {
    for (let i = 0; i < ATTEMPTS; i++) {
      const reading = readOnce(path, wal);
      if (reading.stable) return reading.generations;
    }
    // A WAL restarted under every attempt is being written by a live writer: it is that file's own.
    return null;
  } finally {
    closeSync(wal);
  }
}

/** Why the `-wal` beside `path` must not be replayed onto it, or null when it belongs (or there is none). */
export function walMismatch(path: string): string | null {
  const g = walGenerations(path);
  if (g === null || (g.file >= g.first - 1 && g.file <= g.last)) return null;
  return (
    `${path}-wal does not belong to ${path} (the file is at generation ${g.file}, the WAL holds ${g.first}…${g.last}): ` +
    `was the index restored beside another file's WAL? Stop the indexer and the API, delete ${path}-wal and ${path}-shm, then start them again`
  );
}
