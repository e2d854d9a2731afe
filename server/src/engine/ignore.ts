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
  /** The patterns in use, in order: equal keys judge every path alike (what a cache of judged paths checks). */
  readonly key: string;

  constructor(sources: IgnoreSources) {
    // case-sensitive like the scope globs and the file system: `.ORCHESTRATION/x` is not `.orchestration/x`
    // patterns too costly to match are left out (config.jsonc's are reported as settings-invalid)
    const usable = (patterns: readonly string[]) => patterns.filter((p) => !patternCostProblem(p.trim(), { braces: false }));
    const patterns = [
      usable(sources.exempt),
      usable((sources.rootIgnore ?? "").split(/\r\n|\r|\n/)),
      usable((sources.orchestrationIgnore ?? "").split(/\r\n|\r|\n/)),
    ];
    this.rules = ignore({ allowRelativePaths: true, ignorecase: false });
    for (const list of patterns) this.rules.add(list);
    this.key = JSON.stringify(patterns);
  }

  ignores(path: string): boolean {
    return this.rules.ignores(path);
  }
}
