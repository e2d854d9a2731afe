/**
 * Scope globs (docs/INTENTS.md "What it reads and writes"): minimatch globs over workspace-relative POSIX paths; `!glob` excludes.
 * A glob without wildcards also owns everything below it, as a directory name does in CODEOWNERS.
 */
import { escape as escapeGlob, Minimatch } from "minimatch";
import type { Catalogue, Intent } from "./intents/model";
import { MAX_PATTERN_LENGTH, patternCostProblem } from "./patternLimits";

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
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a memory bound; a glob compiled again gives the same answers
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
  // minimatch makes no pattern only of braces that expand to nothing (`{,}`): a glob without braces is
  // not compiled here, since a catalogue's globs are compiled only when a path is matched against them
  // (a thousand intents' globs compiled at start cost the editor's first read of the catalogue a fifth)
  if (g.includes("{") && !compiles(g)) return `"${raw}" is not a valid glob`;
  return undefined;
}

// Stryker disable BlockStatement,BooleanLiteral: minimatch throws only for a pattern longer than patternCostProblem allows; a glob it would throw on is refused, never let through
/** Whether minimatch makes a pattern of a glob (it makes none of `{,}`). */
function compiles(g: string): boolean {
  try {
    return compiledGlob(g).makeRe() !== false;
  } catch {
    return false;
  }
}
// Stryker restore BlockStatement,BooleanLiteral

function unbalancedBracket(g: string): string | undefined {
  const stack: string[] = [];
  // no escapes to skip: normalizeGlob reads every backslash as a separator
  for (const c of g) {
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
// Stryker disable next-line Regex: minimatch matches a glob's `.` segment only against a path's `.` segment (placeOf), and such a path is tried against every glob
const DOT_SEGMENT = /(^|\/)\.\.?(\/|$)/;
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
 * that could match the path (see `placeOf`): those whose leading segments the path's first segments fit
 * (`src/api/**` for `src/api/x.ts`, `api/v?/m5/**` for `api/v2/m5/y.ts`), those led by `**` whose literal
 * last segment is the path's name (`x.spec.ts`), and the few that may match anywhere. The first question
 * reads each glob's place without building the index (a hook judges one path against a catalogue of any
 * size); the second builds it, for `intent check` and the editor, which ask many.
 */
export class ScopeIndex {
  private readonly compiled = new Map<Intent, CompiledScope>();
  private candidates: Candidates | undefined;
  private readonly ownersOf = new Map<string, Intent[]>();
  private asked = 0;

  constructor(readonly catalogue: Catalogue) {}

  owns(intent: Intent, path: string): boolean {
    let scope = this.compiled.get(intent);
    // Stryker disable next-line ConditionalExpression: a cache; a scope compiled again gives the same answers
    if (!scope) {
      scope = compileScope(intent.ownedScope);
      this.compiled.set(intent, scope);
    }
    return scopeMatches(scope, path);
  }

  owners(path: string): Intent[] {
    let owners = this.ownersOf.get(path);
    // Stryker disable next-line ConditionalExpression: a cache; owners found again are the same
    if (!owners) {
      owners = this.findOwners(path);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a memory bound; owners found again are the same
      if (this.ownersOf.size >= MAX_COMPILED) this.ownersOf.clear();
      this.ownersOf.set(path, owners);
    }
    return [...owners];
  }

  /** Intents with an include glob that matches and no exclude that does, in catalogue order. */
  private findOwners(path: string): Intent[] {
    const parts = path.split("/");
    // a path spelled with empty, `.` or `..` segments is tried against every glob (no path the gate judges is)
    const plain = !parts.some(notPlain);
    const included = new Set<number>();
    // Stryker disable next-line ConditionalExpression: every path may be tried against every glob (the index only spares time), but a path that is not plain may be tried against no fewer
    if (plain && this.firstQuestion()) {
      this.catalogue.intents.forEach((intent, i) => {
        for (const glob of intent.ownedScope)
          if (!included.has(i) && mayPlace(glob, path) && placeFits(placeOf(glob), parts) && globMatches(glob, path)) included.add(i);
      });
    } else {
      this.candidates ??= candidateIndex(this.catalogue);
      for (const g of plain ? this.candidates.lookup(parts) : this.candidates.all)
        if (!included.has(g.intent) && globMatches(g.glob, path)) included.add(g.intent);
    }
    return [...included]
      .sort((a, b) => a - b)
      .map((i) => this.catalogue.intents[i]!)
      .filter((intent) => !intent.ownedScope.some((raw) => raw.startsWith("!") && globMatches(raw.slice(1), path)));
  }

  /** Whether this is the first question, answered glob by glob without building the index (a hook asks one). */
  // Stryker disable next-line BlockStatement: a question not answered glob by glob is answered through the index, with the same owners
  private firstQuestion(): boolean {
    // Stryker disable next-line ConditionalExpression,EqualityOperator,UpdateOperator,BooleanLiteral,LogicalOperator: glob by glob and through the index find the same owners (scope.test.ts asks each question both ways); only the cost differs
    return this.asked++ === 0 && !this.candidates;
  }
}

/** A segment minimatch reads otherwise than places do: an empty one (`a//b`, a trailing `/`) as absent. */
function notPlain(part: string): boolean {
  if (part === "") return true;
  // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: a `.` or `..` segment is matched only by the same segment in a glob, which placeOf places anywhere, so placing such a path finds its owners too
  return part === "." || part === "..";
}

interface GlobRef {
  /** Position of the intent in the catalogue. */
  intent: number;
  glob: string;
}

/**
 * Where a path must lead to be matched by an include glob. `under`: the path's first segments, one per
 * entry, each equal to a literal segment or, for a segment with wildcards (which matches exactly one path
 * segment: no `**`, braces or parentheses), starting with its literal lead. `name`: a glob led by `**`
 * (or a wildcard segment) whose last segment is literal matches only paths with that name. `anywhere`: the
 * rest, and globs with `.` or `..` segments, whose literal reading is uncertain.
 */
type Place = { kind: "under"; segments: Segment[] } | { kind: "name"; name: string } | { kind: "anywhere" };
type Segment = { literal: string } | { lead: string };

const SPANNING = /\*\*|[{}()]/;

/** An include glob's place (`!` excludes have none: they are tried only on an intent already owning the path). */
function placeOf(glob: string): Place {
  const g = normalizeGlob(glob);
  // Stryker disable next-line ConditionalExpression: such a glob matches no plain path (see DOT_SEGMENT), wherever it is placed
  if (DOT_SEGMENT.test(g)) return { kind: "anywhere" };
  const parts = g.split("/").filter((p) => p !== "");
  const segments: Segment[] = [];
  for (const part of parts) {
    if (SPANNING.test(part)) break;
    const magic = part.search(MAGIC);
    // Stryker disable next-line ConditionalExpression: a literal segment read as a lead one lets more paths fit, never fewer
    segments.push(magic === -1 ? { literal: part } : { lead: part.slice(0, magic) });
  }
  if (segments.length > 0) return { kind: "under", segments };
  // no leading segment to place it: its first segment spans (`**`, braces), and so has wildcards if it is the only one
  // Stryker disable next-line StringLiteral: only the empty glob has no segment, and it owns nothing (validateGlob)
  const name = parts[parts.length - 1] ?? "";
  return MAGIC.test(name) ? { kind: "anywhere" } : { kind: "name", name };
}

function segmentFits(s: Segment, part: string): boolean {
  if ("lead" in s) return part.startsWith(s.lead);
  // Stryker disable next-line ConditionalExpression: a literal segment that fits every path lets more globs be tried, never fewer
  return s.literal === part;
}

/** Whether a path (split on `/`, no empty segment) is where `place` says the glob can match. */
function placeFits(place: Place, parts: readonly string[]): boolean {
  switch (place.kind) {
    case "anywhere":
      return true;
    case "name":
      return parts[parts.length - 1] === place.name;
    case "under":
      // Stryker disable next-line ConditionalExpression,MethodExpression: a place that fits more paths (every path, or one fitting segment) lets more globs be tried, never fewer
      return place.segments.length <= parts.length && place.segments.every((s, i) => segmentFits(s, parts[i]!));
  }
}

/**
 * A cheap test, before reading a glob's place, that rules out most globs of a catalogue for a path: an
 * exclude has no place, and a glob read as written (it starts with a plain character; no space, backslash,
 * `//` or `/.`) whose text differs from the path's before its first wildcard cannot match it.
 */
function mayPlace(glob: string, path: string): boolean {
  if (glob.startsWith("!")) return false;
  // `**/name` (a file of that name anywhere), read as written: only a path ending in that name
  if (glob.startsWith("**/")) {
    const name = glob.slice(3);
    if (name !== "" && !name.includes("/") && !MAGIC.test(name) && !REWRITTEN.test(glob)) return path === name || path.endsWith(`/${name}`);
  }
  // Stryker disable ConditionalExpression,LogicalOperator,EqualityOperator: this test only spares reading a place (placeFits still decides), so a change that lets more globs through costs time, not answers; one that lets fewer through is caught
  if (!PLAIN_START.test(glob) || REWRITTEN.test(glob)) return true;
  const n = Math.min(glob.length, path.length);
  let i = 0;
  while (i < n && glob.charCodeAt(i) === path.charCodeAt(i)) i++;
  if (i === n) return true;
  const magic = glob.search(MAGIC);
  return magic !== -1 && magic <= i;
  // Stryker restore ConditionalExpression,LogicalOperator,EqualityOperator
}

const PLAIN_START = /^[A-Za-z0-9_-]/;
/** What normalizeGlob or minimatch reads differently from the text. */
// Stryker disable next-line Regex: a glob taken for rewritten skips only the cheap test above (see mayPlace)
const REWRITTEN = /[\s\\]|\/\/|\/\./;

/** A tree of places: each node's globs, its children by literal segment and by the lead of a wildcard segment. */
class PlaceNode {
  readonly globs: GlobRef[] = [];
  literal: Map<string, PlaceNode> | undefined;
  lead: Map<string, PlaceNode> | undefined;

  child(s: Segment): PlaceNode {
    if ("literal" in s) this.literal ??= new Map();
    else this.lead ??= new Map();
    const [map, key] = "literal" in s ? [this.literal!, s.literal] : [this.lead!, s.lead];
    let node = map.get(key);
    if (!node) {
      node = new PlaceNode();
      map.set(key, node);
    }
    return node;
  }

  /** Every glob on the way down `parts`. */
  collect(parts: readonly string[], depth: number, out: GlobRef[]): void {
    out.push(...this.globs);
    const part = parts[depth];
    if (part === undefined) return;
    this.literal?.get(part)?.collect(parts, depth + 1, out);
    if (this.lead) for (let n = 0; n <= part.length; n++) this.lead.get(part.slice(0, n))?.collect(parts, depth + 1, out);
  }
}

class Candidates {
  readonly root = new PlaceNode();
  readonly byName = new Map<string, GlobRef[]>();
  readonly anywhere: GlobRef[] = [];
  readonly all: GlobRef[] = [];

  add(ref: GlobRef): void {
    this.all.push(ref);
    const place = placeOf(ref.glob);
    // Stryker disable next-line ConditionalExpression: a glob filed as matching anywhere is tried for every path, which costs time, not answers
    if (place.kind === "anywhere") this.anywhere.push(ref);
    else if (place.kind === "name") {
      const list = this.byName.get(place.name);
      if (list) list.push(ref);
      else this.byName.set(place.name, [ref]);
    } else {
      let node = this.root;
      for (const s of place.segments) node = node.child(s);
      node.globs.push(ref);
    }
  }

  /** The globs that can match a path (split on `/`, no empty segment). */
  lookup(parts: readonly string[]): GlobRef[] {
    const out = [...this.anywhere, ...(this.byName.get(parts[parts.length - 1]!) ?? [])];
    this.root.collect(parts, 0, out);
    return out;
  }
}

/**
 * Each include glob as compileScope reads it (none for an unusable glob), remembered by its text as
 * written: `intent check` and the editor ask for every file.
 */
const matchersOf = new Map<string, readonly { match(path: string): boolean }[]>();

/** One include glob the way compileScope reads it, compiled on first use. */
function globMatches(raw: string, path: string): boolean {
  let matchers = matchersOf.get(raw);
  // Stryker disable next-line ConditionalExpression: a cache; matchers made again give the same answers
  if (matchers === undefined) {
    const g = normalizeGlob(raw);
    const literal = literalMatch(g);
    const compiled = () => (validateGlob(raw) !== undefined ? [] : hasMagic(g) ? [compiledGlob(g)] : [compiledGlob(g), compiledGlob(`${g}/**`)]);
    matchers = literal ? [literal(compiled)] : compiled();
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a memory bound; matchers made again give the same answers
    if (matchersOf.size >= MAX_COMPILED) matchersOf.clear();
    matchersOf.set(raw, matchers);
  }
  for (const m of matchers) if (m.match(path)) return true;
  return false;
}

const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
/** An empty, `.` or `..` segment. */
// Stryker disable next-line Regex: a path that starts with `/`, `./` or `../` matches no literal glob either way (validateGlob refuses globs so spelled)
const NOT_PLAIN = /(^|\/)\.{0,2}(\/|$)/;

/**
 * A glob that names a file or folder literally (`src/api`, `src/api/**`, most scopes), matched against a
 * plain path (no empty, `.` or `..` segment) by comparing text, as minimatch matches it: `L/**` matches
 * every path below L (dot files too) but not L itself, and `L` matches L and everything below it. Compiling
 * a glob costs an agent's hook more than the rest of judging its path. Such a glob is always valid (see
 * validateGlob); any other path goes to the compiled glob. Undefined for any other glob.
 */
function literalMatch(g: string): ((compiled: () => readonly Minimatch[]) => { match(path: string): boolean }) | undefined {
  const folder = g.endsWith("/**");
  const base = folder ? g.slice(0, -3) : g;
  // Stryker disable next-line EqualityOperator,Regex: a glob of exactly the longest length, or with a colon after its start, reads the same compiled
  if (g.length > MAX_PATTERN_LENGTH || hasMagic(base) || CONTROL_CHARS.test(base) || /^[A-Za-z]:/.test(base)) return undefined;
  if (NOT_PLAIN.test(base)) return undefined;
  const below = `${base}/`;
  return (compiled) => {
    let fallback: readonly Minimatch[] | undefined;
    return {
      match(path: string): boolean {
        if (NOT_PLAIN.test(path)) {
          fallback ??= compiled();
          return fallback.some((m) => m.match(path));
        }
        // a plain path never ends in `/`, so one that starts with `below` names something inside it
        return path.startsWith(below) || (!folder && path === base);
      },
    };
  };
}

/** Every include glob of the catalogue under its place. */
function candidateIndex(catalogue: Catalogue): Candidates {
  const c = new Candidates();
  catalogue.intents.forEach((intent, i) => {
    for (const glob of intent.ownedScope) if (!glob.startsWith("!")) c.add({ intent: i, glob });
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
