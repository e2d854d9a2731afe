import ignore, { type Ignore } from "ignore";

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
    this.rules = ignore({ allowRelativePaths: true, ignorecase: false })
      .add([...sources.exempt])
      .add(sources.rootIgnore ?? "")
      .add(sources.orchestrationIgnore ?? "");
  }

  ignores(path: string): boolean {
    return this.rules.ignores(path);
  }
}
