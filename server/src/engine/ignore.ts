import { join } from "node:path";
import { appendOwnFile } from "./ownFiles";
import { isSafeRelative } from "./paths";
import { readOptional, ROOT_IGNORE_FILE } from "./workspaceFiles";
import ignore, { type Ignore } from "ignore";
import { patternCostProblem } from "./patternLimits";

/**
 * Paths exempt from scope checks: the settings' `exempt` list and both `.intentignore` files
 * (workspace root and `.orchestration/`). All use gitignore syntax, relative to the workspace root,
 * so a pattern means the same thing whichever of the two files holds it.
 */
export interface IgnoreSources {
  exempt: readonly string[];
  rootIgnore?: string;
  orchestrationIgnore?: string;
}

export class IgnoreRules {
  private readonly rules: Ignore;

  constructor(sources: IgnoreSources) {
    // case-sensitive like the scope globs and the file system: `.ORCHESTRATION/x` is not `.orchestration/x`
    // patterns too costly to match are left out (config.jsonc's are reported as settings-invalid)
    const usable = (patterns: readonly string[]) => patterns.filter((p) => !patternCostProblem(p.trim(), { braces: false }));
    this.rules = ignore({ allowRelativePaths: true, ignorecase: false })
      .add(usable(sources.exempt))
      .add(usable((sources.rootIgnore ?? "").split(/\r\n|\r|\n/)))
      .add(usable((sources.orchestrationIgnore ?? "").split(/\r\n|\r|\n/)));
  }

  ignores(path: string): boolean {
    return this.rules.ignores(path);
  }
}


/**
 * Adds `path` to the root `.intentignore`, anchored with a leading slash so that only this path is meant.
 * Appends; never rewrites what is there. Returns false when the path was already listed.
 */
export function addToIntentIgnore(root: string, path: string): boolean {
  // a line break would add a pattern of its own; `..` or an absolute path would not be a workspace path
  if (!isSafeRelative(path)) throw new Error(`${JSON.stringify(path)} cannot be added to ${ROOT_IGNORE_FILE}: it must be a workspace-relative path without "..", control characters or line breaks`);
  const file = join(root, ROOT_IGNORE_FILE);
  // gitignore syntax: magic characters escaped, and trailing spaces too (gitignore would drop them)
  const line = `/${path.replace(/^\/+/, "").replace(/([*?[\]!#\\])/g, "\\$1").replace(/ +$/, (spaces) => spaces.replace(/ /g, "\\ "))}`;
  const current = readOptional(file) ?? "";
  if (current.split(/\r?\n/).includes(line)) return false;
  const sep = current === "" || current.endsWith("\n") ? "" : "\n";
  appendOwnFile(root, ROOT_IGNORE_FILE, `${sep}${line}\n`);
  return true;
}
