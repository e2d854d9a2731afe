import { closeSync, fstatSync, openSync, readSync, statSync, constants } from "node:fs";
import { open, stat } from "node:fs/promises";

/**
 * What an open document's file holds on disk, looked at cheaply: a stat on every change notification, a
 * read only when the stat changed. Only regular files are read (a FIFO at the path would block the server).
 */
export interface DiskState {
  /** Identity of what was read: a change in any of these means the file was written. */
  size: number;
  mtimeMs: number;
  ino: number;
  /** The file's text, or undefined when it does not exist or cannot be read as a regular file. */
  text: string | undefined;
}

const MISSING: DiskState = { size: -1, mtimeMs: -1, ino: -1, text: undefined };

/** The file's state, reusing `previous` when the stat says nothing changed. */
export function readDiskState(fsPath: string, previous: DiskState | undefined): DiskState {
  let st;
  try {
    st = statSync(fsPath);
  } catch {
    return previous && previous.text === undefined ? previous : MISSING;
  }
  if (previous && previous.size === st.size && previous.mtimeMs === st.mtimeMs && previous.ino === st.ino) return previous;
  if (!st.isFile()) return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, text: undefined };
  return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, text: readRegularFile(fsPath) };
}

/** `readDiskState` without blocking: the read of a large file does not hold up other requests. */
export async function readDiskStateAsync(fsPath: string, previous: DiskState | undefined): Promise<DiskState> {
  let st;
  try {
    st = await stat(fsPath);
  } catch {
    return previous && previous.text === undefined ? previous : MISSING;
  }
  if (previous && previous.size === st.size && previous.mtimeMs === st.mtimeMs && previous.ino === st.ino) return previous;
  if (!st.isFile()) return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, text: undefined };
  return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, text: await readRegularFileAsync(fsPath) };
}

async function readRegularFileAsync(fsPath: string): Promise<string | undefined> {
  let file;
  try {
    // O_NONBLOCK: if the path was swapped for a FIFO since the stat, opening it must not wait for a writer
    file = await open(fsPath, constants.O_RDONLY | constants.O_NONBLOCK);
    const st = await file.stat();
    if (!st.isFile()) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < st.size) {
      const { bytesRead } = await file.read(buf, off, st.size - off, off);
      if (bytesRead === 0) break;
      off += bytesRead;
    }
    return buf.subarray(0, off).toString("utf8");
  } catch {
    return undefined;
  } finally {
    await file?.close().catch(() => undefined);
  }
}

function readRegularFile(fsPath: string): string | undefined {
  let fd: number | undefined;
  try {
    // O_NONBLOCK: if the path was swapped for a FIFO since the stat, opening it must not wait for a writer
    fd = openSync(fsPath, constants.O_RDONLY | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off).toString("utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
