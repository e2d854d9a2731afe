/**
 * The lines `intent init` writes into files a user also owns (`.gitignore`, `.gitattributes`, each agent's
 * hook configuration): intent-lsp's own setup, never a change `intent check` holds against the user. A line
 * counts as setup when it is exactly a line `intent init` would have written into the file as the base had
 * it: the check replays init's change over the base content and keeps the lines of the checked content
 * that this replay also has, in the same place. Every other line of those files (the user's own rules,
 * permissions, hooks) is judged as any other change is.
 */
import { changedSpans, diffTexts } from "../../engine/lineChange";
import { textLines } from "../../engine/lines";
import { hookScript, HOOK_SPECS, mergeHookConfig } from "./agentHooks";
import { appendLines, GITATTRIBUTES_LINES, GITIGNORE_LINES, missingLines } from "./repoFiles";

/** Every workspace file `intent init` may write besides the (exempt) `.orchestration/` files. */
const SETUP_FILES: ReadonlySet<string> = new Set([
  ".gitattributes",
  ".gitignore",
  ...HOOK_SPECS.flatMap((s) => (s.kind === "scripts" ? s.files : s.kind === "json" ? [s.file, ...Object.keys(s.companions ?? {})] : [s.file])),
]);

export function isSetupFile(path: string): boolean {
  return SETUP_FILES.has(path);
}

/** What `intent init` makes of the workspace file `path` given its content (undefined: no file), or undefined when init does not write it. */
export function initOutput(path: string, existing: string | undefined): string | undefined {
  if (path === ".gitattributes") return withLines(existing, GITATTRIBUTES_LINES);
  if (path === ".gitignore") return withLines(existing, GITIGNORE_LINES);
  for (const spec of HOOK_SPECS) {
    if (spec.kind === "scripts") {
      if (spec.files.includes(path)) return existing ?? hookScript(spec.agent);
    } else if (spec.kind === "plugin") {
      if (spec.file === path) return existing ?? spec.text;
    } else if (spec.companions && Object.hasOwn(spec.companions, path)) {
      return existing ?? spec.companions[path];
    } else if (spec.file === path) {
      const merged = mergeHookConfig(spec, existing);
      return merged.ok ? merged.text : existing;
    }
  }
  return undefined;
}

function withLines(existing: string | undefined, lines: readonly string[]): string | undefined {
  const missing = missingLines(existing, lines);
  return missing.length ? appendLines(existing, missing) : existing;
}

/**
 * The 1-based lines of `checked` (the file's content being checked) that are `intent init`'s own, given the
 * file's content at the base (undefined: absent there). Empty for a file init does not write.
 */
export function setupLines(path: string, base: string | undefined, checked: string): Set<number> {
  const own = new Set<number>();
  const expected = initOutput(path, base);
  if (expected === undefined || expected === base) return own;
  // the lines init adds or changes in its output, then where each of them sits, unchanged, in the checked content
  const added = new Set<number>();
  for (const span of changedSpans(diffTexts(base ?? null, expected))) for (let l = span.start; l <= span.end; l++) added.add(l);
  // a base without a final line break: init ends its last line to append after it, and git counts that line changed
  if (base && !/[\r\n]$/.test(base) && expected.startsWith(base)) added.add(textLines(base).length - 1);
  const change = diffTexts(expected, checked);
  const reformatted = new Set<number>();
  for (const span of change.reformatted) for (let l = span.start; l <= span.end; l++) reformatted.add(l);
  for (const seg of change.carried) {
    for (let k = 0; k < seg.length; k++) {
      if (added.has(seg.oldStart + k) && !reformatted.has(seg.newStart + k)) own.add(seg.newStart + k + 1);
    }
  }
  return own;
}
