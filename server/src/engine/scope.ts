import { LRUCache } from "lru-cache";
import { escape, Minimatch } from "minimatch";
import type { Catalogue, Intent } from "./intents/model";

/**
 * Scope globs (DESIGN §2.1): minimatch globs over workspace-relative POSIX paths; `!glob` excludes.
 * A glob without wildcards also owns everything below it, as a directory name does in CODEOWNERS.
 */

const MATCH_OPTIONS = { dot: true, nonegate: true, nocomment: true } as const;

/**
 * Every glob is compiled once per process, whoever asks (validation, the scopes, a parent's scope checked
 * for each child): compiling is most of what a hook call used to cost. Bounded, because an editor session
 * sees every prefix of a glob being typed.
 */
const compiledGlobs = new LRUCache<string, Minimatch>({ max: 50_000 });
let compilations = 0;

function compiledGlob(glob: string): Minimatch {
  let m = compiledGlobs.get(glob);
  if (!m) {
    m = new Minimatch(glob, MATCH_OPTIONS);
    compiledGlobs.set(glob, m);
    compilations++;
  }
  return m;
}

/** Globs compiled by this process so far (what tests count: each glob once, however often it is used). */
export function globCompilations(): number {
  return compilations;
}

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
  if (compiledGlob(g).makeRe() === false) return `"${raw}" is not a valid glob`;
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
    target.push(compiledGlob(g));
    if (!hasMagic(g)) target.push(compiledGlob(`${g}/**`));
  }
  return { include, exclude };
}

export function scopeMatches(scope: CompiledScope, path: string): boolean {
  return scope.include.some((m) => m.match(path)) && !scope.exclude.some((m) => m.match(path));
}

/**
 * The scopes of a whole catalogue. An intent's globs are compiled when it is first asked about, and `owners`
 * tests only the intents that could own the path: those with a glob whose leading literal folders the path
 * lies in (`src/api/**` for `src/api/x.ts`), and those whose globs start with a wildcard. A hook judges one
 * path against a catalogue of any size; `intent check` asks the same paths again for every record.
 */
export class ScopeIndex {
  private readonly compiled = new Map<string, CompiledScope>();
  private candidates: { byFolder: Map<string, number[]>; anywhere: number[] } | undefined;
  private readonly ownersOf = new LRUCache<string, Intent[]>({ max: 50_000 });

  constructor(readonly catalogue: Catalogue) {}

  owns(intent: Intent, path: string): boolean {
    let scope = this.compiled.get(intent.id);
    if (!scope) {
      scope = compileScope(intent.ownedScope);
      this.compiled.set(intent.id, scope);
    }
    return scopeMatches(scope, path);
  }

  owners(path: string): Intent[] {
    let owners = this.ownersOf.get(path);
    if (!owners) {
      owners = this.candidatesFor(path).filter((i) => this.owns(i, path));
      this.ownersOf.set(path, owners);
    }
    return [...owners];
  }

  /** Intents that may own `path`, in catalogue order. */
  private candidatesFor(path: string): Intent[] {
    const { byFolder, anywhere } = (this.candidates ??= candidateIndex(this.catalogue));
    const found = new Set(anywhere);
    const parts = path.split("/").filter((p) => p !== "");
    for (let n = 0; n < parts.length; n++) for (const i of byFolder.get(parts.slice(0, n).join("/")) ?? []) found.add(i);
    return [...found].sort((a, b) => a - b).map((i) => this.catalogue.intents[i]!);
  }
}

/** Each intent (by position) under the literal folders its include globs start with; "" for any folder. */
function candidateIndex(catalogue: Catalogue): { byFolder: Map<string, number[]>; anywhere: number[] } {
  const byFolder = new Map<string, number[]>();
  const anywhere: number[] = [];
  catalogue.intents.forEach((intent, i) => {
    const folders = new Set<string>();
    for (const raw of intent.ownedScope) if (!raw.startsWith("!")) folders.add(literalFolder(normalizeGlob(raw)));
    for (const folder of folders) {
      if (folder === "") anywhere.push(i);
      else {
        const list = byFolder.get(folder);
        if (list) list.push(i);
        else byFolder.set(folder, [i]);
      }
    }
  });
  return { byFolder, anywhere };
}

/**
 * The folders a glob's matches all lie in, from its segments before the first wildcard (the last segment
 * excluded: `src/api` also owns `src/api` itself). "" when it may match anywhere, or when `.`/`..` make the
 * literal reading uncertain.
 */
function literalFolder(glob: string): string {
  const parts = glob.split("/").filter((p) => p !== "");
  const literal: string[] = [];
  for (let i = 0; i < parts.length - 1 && !hasMagic(parts[i]!); i++) {
    if (parts[i] === "." || parts[i] === "..") return "";
    literal.push(parts[i]!);
  }
  return literal.join("/");
}

/** A representative path a glob matches, to test whether a child's scope lies inside its parent's. */
export function samplePath(glob: string): string {
  return normalizeGlob(glob)
    .replace(/\{([^,}]*)[^}]*\}/g, "$1")
    .replace(/\[([^\]])[^\]]*\]/g, "$1")
    .replace(/\*\*/g, "x")
    .replace(/[*?]/g, "x");
}
