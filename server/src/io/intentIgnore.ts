/** Appending to the workspace's `.intentignore` (the quick fix "exempt this file"). */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { readOptional } from "./optionalFile";

/**
 * Adds `path` to the root `.intentignore`, anchored with a leading slash so that only this path is meant.
 * Appends; never rewrites what is there. Returns false when the path was already listed.
 */
export function addToIntentIgnore(root: string, path: string): boolean {
  const file = join(root, ".intentignore");
  const line = `/${path.replace(/^\/+/, "").replace(/([*?[\]!#])/g, "\\$1")}`;
  const current = readOptional(file) ?? "";
  if (current.split(/\r?\n/).includes(line)) return false;
  const sep = current === "" || current.endsWith("\n") ? "" : "\n";
  appendFileSync(file, `${sep}${line}\n`);
  return true;
}
