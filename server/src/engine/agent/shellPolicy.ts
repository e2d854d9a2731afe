import type { GateDecision } from "./decision";

/**
 * A shell command cannot be scoped before it runs: which files it writes is only known after (shellWrite.ts
 * records and checks them then). So the gate asks the
 * person about commands that look like they write or delete files and leaves the others to the agent's own
 * permission rules. A heuristic, on purpose on the cautious side; it is not a sandbox.
 */
const WRITING_COMMANDS: readonly [RegExp, string][] = [
  [/(?<![<>=-])[\d&]?>>?(?!=)\|?\s*(?!&\d|\/dev\/(null|stdout|stderr)\b)[^\s&|;<>]/, "redirects output into a file"],
  [/(^|[\s;&|(`])(rm|rmdir|unlink|shred|truncate)(\s|$)/, "deletes files"],
  [/(^|[\s;&|(`])(mv|cp|install|ln|rsync|dd|touch|mkdir|chmod|chown)(\s|$)/, "creates, moves or changes files"],
  [/(^|[\s;&|(`])tee(\s|$)/, "writes a file with tee"],
  [/(^|[\s;&|(`])(sed|perl|ruby)\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*i/, "edits files in place"],
  [/(^|[\s;&|(`])git\s+(checkout|switch|restore|reset|clean|stash|apply|am|merge|rebase|cherry-pick|revert|pull|mv|rm)(\s|$)/, "rewrites the working tree with git"],
  [/(^|[\s;&|(`])((patch|unzip)(\s|$)|tar\s+(-?[a-zA-Z]*x|--extract))/, "unpacks or patches files"],
  [/(^|[\s;&|(`])(npx\s+)?(prettier\s+.*--write|eslint\s+.*--fix)(\s|$)/, "rewrites files with a formatter"],
  [/\b(writeFile|open\([^)]*['"][wa]['"])/, "writes files from a script"],
];

export function gateShell(command: string): GateDecision {
  for (const [pattern, what] of WRITING_COMMANDS) {
    if (pattern.test(command)) {
      return {
        kind: "ask",
        code: "shell-write",
        reason: `This command ${what}; intent-lsp cannot check a shell command's writes against the active intent's scope before it runs (they are recorded and checked after it), so the user decides. Prefer the Write/Edit tools for file changes: they are checked before they happen.`,
      };
    }
  }
  return { kind: "none", code: "shell-read-only" };
}
