/**
 * Scope globs (README "What it reads and writes"): minimatch globs over workspace-relative POSIX paths; `!glob` excludes.
 * A glob without wildcards also owns everything below it, as a directory name does in CODEOWNERS.
 */
import { escape as escapeGlob, Minimatch } from "minimatch";
import type { Catalogue, Intent } from "./intents/model";
import { patternCostProblem } from "./patternLimits";

const MATCH_OPTIONS = { dot: true, nonegate: true, nocomment: true } as const;

/**
 * Every glob is compiled once per process, whoever asks (validation, the scopes, a parent's scope checked
 * for each child): compiling costs more than the rest of a hook call's matching. Bounded, because an editor session
 * sees every prefix of a glob being typed.
 */
const compiledGlobs = new Map<string, Minimatch>();
const MAX_COMPILED = 50_000;
let compilations = 0;

function compiledGlob(glob: string): Minimatch {
  let m = compiledGlobs.get(glob);
  if (!m) {
    m = new Minimatch(glob, MATCH_OPTIONS);
    if (compiledGlobs.size >= MAX_COMPILED) compiledGlobs.clear();
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
  return escapeGlob(path, { windowsPathsNoEscape: true });
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
    if (compiledGlob(g).makeRe() === false) return `"${raw}" is not a valid glob`;
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

const MAGIC = /[*?[\]{}()!+@]/;
const hasMagic = (g: string) => MAGIC.test(g);
const DOT_SEGMENT = /(^|\/)\.\.?(\/|$)/;
/** A glob's literal folders as a path names them (minimatch reads `a//b` as `a/b`). */
const collapse = (s: string) =>
  s.includes("//") || s.startsWith("/")
    ? s
        .split("/")
        .filter((p) => p !== "")
        .join("/")
    : s;

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
 * The scopes of a whole catalogue. Globs are compiled when first needed, and `owners` tests only the globs
 * that could match the path: those whose leading literal segments the path starts with (`src/api/**` for
 * `src/api/x.ts`), those led by a wildcard whose literal last segment is the path's name (`x.spec.ts`), and
 * the few that may match anywhere. A hook judges one path against a catalogue of any size; `intent check`
 * asks the same paths again for every record.
 */
export class ScopeIndex {
  private readonly compiled = new Map<string, CompiledScope>();
  private candidates: Candidates | undefined;
  private readonly ownersOf = new Map<string, Intent[]>();

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
      owners = this.findOwners(path);
      if (this.ownersOf.size >= MAX_COMPILED) this.ownersOf.clear();
      this.ownersOf.set(path, owners);
    }
    return [...owners];
  }

  /** Intents with an include glob that matches and no exclude that does, in catalogue order. */
  private findOwners(path: string): Intent[] {
    this.candidates ??= candidateIndex(this.catalogue);
    const c = this.candidates;
    const parts = path.split("/").filter((p) => p !== "");
    const globs: GlobRef[][] = [c.anywhere, c.byName.get(parts[parts.length - 1] ?? "") ?? []];
    for (let n = 1; n <= parts.length; n++) globs.push(c.byPrefix.get(parts.slice(0, n).join("/")) ?? []);
    const included = new Set<number>();
    for (const list of globs) for (const g of list) if (!included.has(g.intent) && globMatches(g.glob, path)) included.add(g.intent);
    return [...included]
      .sort((a, b) => a - b)
      .map((i) => this.catalogue.intents[i]!)
      .filter((intent) => !intent.ownedScope.some((raw) => raw.startsWith("!") && globMatches(raw.slice(1), path)));
  }
}

interface GlobRef {
  /** Position of the intent in the catalogue. */
  intent: number;
  glob: string;
}

interface Candidates {
  byPrefix: Map<string, GlobRef[]>;
  byName: Map<string, GlobRef[]>;
  anywhere: GlobRef[];
}

/** Whether a glob is one compileScope uses (valid), remembered: `intent check` asks for every file. */
const usableGlobs = new Map<string, boolean>();

/** One include glob the way compileScope reads it, compiled on first use. */
function globMatches(raw: string, path: string): boolean {
  let usable = usableGlobs.get(raw);
  if (usable === undefined) {
    usable = validateGlob(raw) === undefined;
    if (usableGlobs.size >= MAX_COMPILED) usableGlobs.clear();
    usableGlobs.set(raw, usable);
  }
  if (!usable) return false;
  const g = normalizeGlob(raw);
  return compiledGlob(g).match(path) || (!hasMagic(g) && compiledGlob(`${g}/**`).match(path));
}

/** Every include glob of the catalogue under the literal part of the paths it can match. */
function candidateIndex(catalogue: Catalogue): Candidates {
  const c: Candidates = { byPrefix: new Map(), byName: new Map(), anywhere: [] };
  const add = (map: Map<string, GlobRef[]>, key: string, ref: GlobRef) => {
    const list = map.get(key);
    if (list) list.push(ref);
    else map.set(key, [ref]);
  };
  catalogue.intents.forEach((intent, i) => {
    for (const glob of intent.ownedScope) {
      if (glob.startsWith("!")) continue;
      const g = normalizeGlob(glob);
      const ref = { intent: i, glob };
      const magic = g.search(MAGIC);
      // `.` and `..` make a literal reading uncertain: such a glob is tried everywhere
      if (DOT_SEGMENT.test(g)) c.anywhere.push(ref);
      else if (magic === -1) add(c.byPrefix, collapse(g), ref);
      else if (g.lastIndexOf("/", magic) > 0) add(c.byPrefix, collapse(g.slice(0, g.lastIndexOf("/", magic))), ref);
      else {
        const name = g.slice(g.lastIndexOf("/") + 1);
        if (g.lastIndexOf("/") > magic && !MAGIC.test(name)) add(c.byName, name, ref);
        else c.anywhere.push(ref);
      }
    }
  });
  return c;
}

/** A representative path a glob matches, to test whether a child's scope lies inside its parent's. */
export function samplePath(glob: string): string {
  return normalizeGlob(glob)
    .replace(/\{([^,}]*)[^}]*\}/g, "$1")
    .replace(/\[([^\]])[^\]]*\]/g, "$1")
    .replace(/\*\*/g, "x")
    .replace(/[*?]/g, "x");
}
