import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";

/**
 * Opening only regular files. Paths come from repositories and agents: a FIFO where a file should be blocks
 * `open` until someone writes to it (forever, in a hook the agent is waiting on), and a device such as
 * /dev/zero never ends. So files are opened non-blocking and checked with fstat before a byte is read;
 * anything but a regular file is refused with an error that says what it is.
 */

// O_NONBLOCK makes open() of a FIFO return at once; on a regular file it changes nothing. (0 where absent.)
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const NOCTTY = constants.O_NOCTTY ?? 0;
export const READ_FLAGS = constants.O_RDONLY | NONBLOCK | NOCTTY;
/** Append, creating the file if missing; never truncates. */
export const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NONBLOCK | NOCTTY;
/** Read and append (the ledger writer reads its tail to chain `prev`). */
export const READ_APPEND_FLAGS = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | NONBLOCK | NOCTTY;

export class NotRegularFileError extends Error {
  override name = "NotRegularFileError";
  readonly code = "ENOTREG";
  constructor(
    readonly path: string,
    kind: string,
  ) {
    super(`${path} is ${kind}, not a regular file; intent-lsp reads and writes only regular files (remove or rename it)`);
  }
}

/** What a non-regular file is, in words. */
export function fileKind(st: Stats): string {
  if (st.isFile()) return "a regular file";
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  if (st.isSymbolicLink()) return "a symbolic link";
  return "not a regular file";
}

/** A descriptor for reading `path`, which must be a regular file; throws NotRegularFileError otherwise. */
export function openRegularSync(path: string, flags = READ_FLAGS): number {
  const fd = openSync(path, flags);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new NotRegularFileError(path, fileKind(st));
    return fd;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** The whole text of a regular file (UTF-8). */
export function readRegularText(path: string): string {
  return readRegularBytes(path).toString("utf8");
}

/** The whole content of a regular file. */
export function readRegularBytes(path: string): Buffer {
  const fd = openSync(path, READ_FLAGS);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new NotRegularFileError(path, fileKind(st));
    // sized by the one fstat, a byte to spare: an unchanged file is read in one call, then the end is seen
    // (tens of thousands of files are read this way by `intent stats`)
    let buf = Buffer.allocUnsafe(Math.max(st.size, 0) + 1);
    let length = 0;
    for (;;) {
      if (length === buf.length) {
        // it grew while we read: go on in modest steps
        const bigger = Buffer.allocUnsafe(buf.length + 64 * 1024);
        buf.copy(bigger, 0, 0, length);
        buf = bigger;
      }
      const n = readSync(fd, buf, length, buf.length - length, null);
      if (n === 0) break;
      length += n;
    }
    return buf.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/** The async twin of `openRegularSync`. */
export async function openRegular(path: string, flags = READ_FLAGS): Promise<FileHandle> {
  const handle = await open(path, flags);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new NotRegularFileError(path, fileKind(st));
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** The async twin of `readRegularText`: a large file's read does not hold up the server's other requests. */
export async function readRegularTextAsync(path: string): Promise<string> {
  const handle = await openRegular(path);
  try {
    return (await handle.readFile()).toString("utf8");
  } finally {
    await handle.close();
  }
}
