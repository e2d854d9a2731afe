import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { sealCache } from "../../server/src/io/checkedCache";

/**
 * The ways a cache file is found damaged (a crash after a rename, a full disk, a person, a bad sector), for
 * the differential tests that hold every answer to the answer with the cache intact. Each takes the intact
 * bytes and gives the damaged ones; undefined: the file is gone.
 */
export const DAMAGES: readonly { name: string; damage: (intact: Buffer) => Buffer | undefined }[] = [
  { name: "deleted", damage: () => undefined },
  { name: "zeroed at the same length", damage: (b) => Buffer.alloc(b.length) },
  { name: "truncated", damage: (b) => b.subarray(0, b.length >> 1) },
  { name: "with a garbage tail", damage: (b) => Buffer.concat([b, Buffer.from('\n{"garbage":[1,2,3]}\u0000\u00ff\u0007tail', "utf8")]) },
  { name: "with one bit flipped in the middle", damage: flipMiddle },
];

/**
 * One bit flipped in the middle of the bytes: in the second digit of a number when the bytes are JSON there
 * (a digit stays a digit, so the file still parses and says another number, far from the first), else in
 * the middle byte.
 */
export function flipMiddle(b: Buffer): Buffer {
  const out = Buffer.from(b);
  const text = b.toString("latin1");
  const number = /[[,:]-?\d\d/g;
  number.lastIndex = b.length >> 1;
  const found = number.exec(text);
  const at = found ? found.index + found[0].length - 1 : b.length >> 1;
  out[at] = out[at]! ^ 0x01;
  return out;
}

/** Replaces the file at `path` with `damage` of its bytes (removes it when the damage is deletion). */
export function damageFile(path: string, damage: (intact: Buffer) => Buffer | undefined): void {
  const bytes = damage(readFileSync(path));
  if (bytes === undefined) rmSync(path);
  else writeFileSync(path, bytes);
}

/**
 * Rewrites what the cache file at `path` holds, sealed again as intent-lsp seals it (io/checkedCache.ts,
 * under the name, format and checksum its envelope states, keyed with this user's cache key, which the
 * commands the tests start share): a cache that is whole but says something else.
 */
export function rewriteCache(path: string, edit: (payload: string) => string): void {
  const bytes = readFileSync(path);
  const end = bytes.indexOf(0x0a);
  const [, name, format, checksum] = bytes.toString("latin1", 0, end).trimEnd().split(" ");
  const kind = { name: name!, format: Number(format), checksum: checksum === "hmac-sha256" ? ("sha256" as const) : ("words" as const) };
  const payload = edit(bytes.subarray(end + 1).toString("utf8"));
  writeFileSync(path, Buffer.concat(sealCache(kind, [Buffer.from(payload, "utf8")])));
}
