/** Appending to the workspace's `.intentignore` (the quick fix "exempt this file"). */
import { isSafeRelative } from "../engine/paths";
import { ROOT_IGNORE_FILE } from "../engine/workspaceFiles";
import { appendOwnFile, readOwnFile } from "./ownFiles";

/**
 * Adds `path` to the root `.intentignore`, anchored with a leading slash so that only this path is meant.
 * Appends; never rewrites what is there. Returns false when the path was already listed.
 */
export function addToIntentIgnore(root: string, path: string): boolean {
  // a line break would add a pattern of its own; `..` or an absolute path would not be a workspace path
  if (!isSafeRelative(path))
    throw new Error(
      `${JSON.stringify(path)} cannot be added to ${ROOT_IGNORE_FILE}: it must be a workspace-relative path without "..", control characters or line breaks`,
    );
  // gitignore syntax: magic characters escaped, and trailing spaces too (gitignore would drop them)
  const line = `/${path
    .replace(/^\/+/, "")
    .replace(/([*?[\]!#\\])/g, "\\$1")
    .replace(/ +$/, (spaces) => spaces.replace(/ /g, "\\ "))}`;
  const current = readOwnFile(root, ROOT_IGNORE_FILE) ?? "";
  if (current.split(/\r?\n/).includes(line)) return false;
  const sep = current === "" || current.endsWith("\n") ? "" : "\n";
  appendOwnFile(root, ROOT_IGNORE_FILE, `${sep}${line}\n`);
  return true;
}
