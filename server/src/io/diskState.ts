import { statSync, type Stats } from "node:fs";
import { stat } from "node:fs/promises";
import { readRegularText, readRegularTextAsync } from "./regularFiles";

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
  let st: Stats;
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
  let st: Stats;
  try {
    st = await stat(fsPath);
  } catch {
    return previous && previous.text === undefined ? previous : MISSING;
  }
  if (previous && previous.size === st.size && previous.mtimeMs === st.mtimeMs && previous.ino === st.ino) return previous;
  if (!st.isFile()) return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, text: undefined };
  return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, text: await readRegularFileAsync(fsPath) };
}

/** The file's text, or undefined when it is not a regular file or cannot be read (it changed meanwhile). */
function readRegularFile(fsPath: string): string | undefined {
  try {
    return readRegularText(fsPath);
  } catch {
    return undefined;
  }
}

async function readRegularFileAsync(fsPath: string): Promise<string | undefined> {
  try {
    return await readRegularTextAsync(fsPath);
  } catch {
    return undefined;
  }
}
