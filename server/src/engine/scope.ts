import { escape, Minimatch } from "minimatch";
import type { Catalogue, Intent } from "./intents/model";
import { patternCostProblem } from "./patternLimits";

/**
 * Scope globs (DESIGN §2.1): minimatch globs over workspace-relative POSIX paths; `!glob` excludes.
 * A glob without wildcards also owns everything below it, as a directory name does in CODEOWNERS.
 */

const MATCH_OPTIONS = { dot: true, nonegate: true, nocomment: true } as const;

export function normalizeGlob(glob: string): string {
  let g = glob.trim().replace(/\\/g, "/");
  while (g.startsWith("./")) g = g.slice(2);
  if (g.endsWith("/")) g += "**";
  return g;
}

/**
 * A glob that matches exactly this path, even when it holds glob characters (`src/app/[id]/page.tsx`):
 * magic characters are wrapped in a class (`[[]`), because normalizeGlob reads backslashes as separators.
 */
export function pathToGlob(path: string): string {
  return escape(path, { windowsPathsNoEscape: true });
}

/** Why a glob cannot be used, or undefined when it is fine. */
export function validateGlob(raw: string): string | undefined {
  const glob = raw.startsWith("!") ? raw.slice(1) : raw;
  const g = normalizeGlob(glob);
  if (g === "") return "the glob is empty";
  if (g.startsWith("/") || /^[A-Za-z]:/.test(g)) return `"${raw}" is absolute; scopes are workspace-relative (e.g. "src/api/**")`;
  if (g.split("/").includes("..")) return `"${raw}" leaves the workspace ("..")`;
  const unbalanced = unbalancedBracket(g);
  if (unbalanced) return `"${raw}" has an unclosed "${unbalanced}"`;
  const costly = patternCostProblem(g, { braces: true });
  if (costly) return costly;
  try {
    if (new Minimatch(g, MATCH_OPTIONS).makeRe() === false) return `"${raw}" is not a valid glob`;
  } catch (err) {
    return `"${raw}" is not a valid glob (${(err as Error).message.slice(0, 120)})`;
  }
  return undefined;
}

function unbalancedBracket(g: string): string | undefined {
  const stack: string[] = [];
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "[" || c === "{") stack.push(c);
    else if (c === "]" || c === "}") {
      const open = stack.pop();
      if (open === undefined || (open === "[") !== (c === "]")) return c;
    }
  }
  return stack.pop();
}

const hasMagic = (g: string) => /[*?[\]{}()!+@]/.test(g);

export interface CompiledScope {
  include: Minimatch[];
  exclude: Minimatch[];
}

export function compileScope(globs: readonly string[]): CompiledScope {
  const include: Minimatch[] = [];
  const exclude: Minimatch[] = [];
  for (const raw of globs) {
    if (validateGlob(raw)) continue;
    const negated = raw.startsWith("!");
    const g = normalizeGlob(negated ? raw.slice(1) : raw);
    const target = negated ? exclude : include;
    target.push(new Minimatch(g, MATCH_OPTIONS));
    if (!hasMagic(g)) target.push(new Minimatch(`${g}/**`, MATCH_OPTIONS));
  }
  return { include, exclude };
}

export function scopeMatches(scope: CompiledScope, path: string): boolean {
  return scope.include.some((m) => m.match(path)) && !scope.exclude.some((m) => m.match(path));
}

/** Compiled scopes for a whole catalogue, built once per load so matching never recompiles globs. */
export class ScopeIndex {
  private readonly compiled = new Map<string, CompiledScope>();

  constructor(readonly catalogue: Catalogue) {
    for (const intent of catalogue.intents) this.compiled.set(intent.id, compileScope(intent.ownedScope));
  }

  owns(intent: Intent, path: string): boolean {
    const scope = this.compiled.get(intent.id) ?? compileScope(intent.ownedScope);
    return scopeMatches(scope, path);
  }

  owners(path: string): Intent[] {
    return this.catalogue.intents.filter((i) => this.owns(i, path));
  }
}

/** A representative path a glob matches, to test whether a child's scope lies inside its parent's. */
export function samplePath(glob: string): string {
  return normalizeGlob(glob)
    .replace(/\{([^,}]*)[^}]*\}/g, "$1")
    .replace(/\[([^\]])[^\]]*\]/g, "$1")
    .replace(/\*\*/g, "x")
    .replace(/[*?]/g, "x");
}
