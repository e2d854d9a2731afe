/**
 * Reading git's output for dating lines (engine/lineTimes.ts), as text in and data out: a patch stream
 * (`git log -p -U0` with a commit marker line, or `git diff -U0`) line by line, and `git log --raw -z`.
 * Paths arrive as git writes them with core.quotePath=false: verbatim, or C-quoted when they hold a quote,
 * a backslash or a control character.
 */
import { parseHunkHeader, type FilePatch, type RawChange } from "./lineTimes";

/** The first character of the commit marker line (`--format=%x01%H %ct`). */
export const COMMIT_MARK = "\u0001";

/** A commit's marker line: its id, committer time (epoch s) and parents. */
export interface CommitHeader {
  sha: string;
  time: number;
  parents: string[];
}

export function parseCommitHeader(line: string): CommitHeader | undefined {
  const [sha, time, ...parents] = line.slice(COMMIT_MARK.length).trim().split(" ");
  const t = Number(time);
  if (!sha || !/^[0-9a-f]{40,64}$/.test(sha) || !Number.isFinite(t)) return undefined;
  return { sha, time: t, parents: parents.filter(Boolean) };
}

const UTF8 = new TextEncoder();
const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };

/** A path as git prints it: C-quoted (`"a\tb"`, octal bytes) or verbatim. */
export function unquotePath(text: string): string {
  if (!text.startsWith('"') || !text.endsWith('"') || text.length < 2) return text;
  const bytes: number[] = [];
  const body = text.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      bytes.push(...UTF8.encode(c));
      continue;
    }
    const next = body[++i] ?? "";
    if (/[0-3]/.test(next) && /^[0-7]{2}$/.test(body.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** `a/path` or `b/path` (quoted or not) without its prefix; undefined for /dev/null. */
function prefixed(text: string): string | undefined {
  const path = unquotePath(text.replace(/\t$/, ""));
  if (path === "/dev/null") return undefined;
  return path.startsWith("a/") || path.startsWith("b/") ? path.slice(2) : path;
}

/**
 * The path of a `diff --git a/X b/Y` line where nothing else names it (a binary or mode-only change):
 * quoted paths are read as such; unquoted ones are the same path twice (a rename names both elsewhere).
 */
function diffGitPath(rest: string): string | undefined {
  if (rest.startsWith('"') || rest.endsWith('"')) {
    const m = /^("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)$/.exec(rest);
    return m ? prefixed(m[2]!) : undefined;
  }
  // "a/P b/P": both halves the same length
  if (rest.length % 2 === 0) return undefined;
  const half = (rest.length - 1) / 2;
  return rest.startsWith("a/") && rest.slice(half + 1).startsWith("b/") ? rest.slice(half + 3) : undefined;
}

/**
 * Reads a patch stream line by line (`push`), handing each commit's marker and each file's section on as
 * they end. A hunk's content lines are counted by its header, so no content is ever taken for a header.
 */
export class PatchReader {
  private file: (FilePatch & { fromGit?: string; minus?: string; plus?: string }) | undefined;
  private minus = 0;
  private plus = 0;
  /** Lines that did not read as git's patch format (the stream is then not trusted). */
  malformed = 0;

  constructor(
    private readonly onFile: (patch: FilePatch) => void,
    private readonly onCommit: (commit: CommitHeader) => void = () => {},
  ) {}

  push(line: string): void {
    if (this.minus > 0 || this.plus > 0) {
      const c = line[0];
      if (c === "-" && this.minus > 0) this.minus--;
      else if (c === "+" && this.plus > 0) this.plus--;
      else if (c !== "\\") {
        this.malformed++;
        this.minus = this.plus = 0;
      }
      return;
    }
    if (line.startsWith(COMMIT_MARK)) {
      this.end();
      const header = parseCommitHeader(line);
      if (header) this.onCommit(header);
      else this.malformed++;
      return;
    }
    if (line.startsWith("diff --git ")) {
      this.end();
      this.file = { path: "", kind: "modified", hunks: [], fromGit: line.slice("diff --git ".length) };
      return;
    }
    const f = this.file;
    if (!f) return;
    if (line.startsWith("@@ ")) {
      const h = parseHunkHeader(line);
      if (!h) {
        this.malformed++;
        return;
      }
      f.hunks.push(h);
      this.minus = h.oldLines;
      this.plus = h.newLines;
    } else if (line.startsWith("new file mode ")) f.kind = "added";
    else if (line.startsWith("deleted file mode ")) f.kind = "deleted";
    else if (line.startsWith("rename from ")) f.from = unquotePath(line.slice("rename from ".length));
    else if (line.startsWith("rename to ")) f.path = unquotePath(line.slice("rename to ".length));
    else if (line.startsWith("--- ")) f.minus = line.slice(4);
    else if (line.startsWith("+++ ")) f.plus = line.slice(4);
    else if (line.startsWith("Binary files ") && line.endsWith(" differ")) {
      if (f.kind === "modified") f.kind = "binary";
    }
  }

  /** Hands on the file being read, if any: call at the end of the stream. */
  end(): void {
    const f = this.file;
    this.file = undefined;
    this.minus = this.plus = 0;
    if (!f) return;
    const path =
      f.path ||
      (f.plus !== undefined ? prefixed(f.plus) : undefined) ||
      (f.minus !== undefined ? prefixed(f.minus) : undefined) ||
      diffGitPath(f.fromGit ?? "");
    if (!path) {
      this.malformed++;
      return;
    }
    this.onFile({ path, ...(f.from !== undefined ? { from: f.from } : {}), kind: f.kind, hunks: f.hunks });
  }
}

/** One commit of `git log --raw -z`: its marker and its changed files. */
export interface RawCommit extends CommitHeader {
  changes: RawChange[];
}

/**
 * Parses `git log --raw -z --format=%x01%H %ct %P`: each commit's added, deleted, modified, type-changed
 * and renamed files. Undefined when a field does not read as git's format (nothing of it is trusted).
 */
export function parseRawLog(output: string): RawCommit[] | undefined {
  const commits: RawCommit[] = [];
  const fields = output.split("\0");
  let current: RawCommit | undefined;
  for (let i = 0; i < fields.length; i++) {
    let f = fields[i]!.replace(/^\n+/, "");
    if (f === "") continue;
    if (f.startsWith(COMMIT_MARK)) {
      const nl = f.indexOf("\n");
      const header = parseCommitHeader(nl < 0 ? f : f.slice(0, nl));
      if (!header) return undefined;
      current = { ...header, changes: [] };
      commits.push(current);
      if (nl < 0) continue;
      f = f.slice(nl + 1).replace(/^\n+/, "");
      if (f === "") continue;
    }
    if (!current || !f.startsWith(":")) return undefined;
    const status = f.split(" ").at(-1)![0];
    const path = fields[++i];
    if (path === undefined) return undefined;
    if (status === "R" || status === "C") {
      const to = fields[++i];
      if (to === undefined) return undefined;
      // a copy (only with -C, which the walk does not ask for) is an added file
      current.changes.push(status === "R" ? { status: "R", path: to, from: path } : { status: "A", path: to });
    } else if (status === "A" || status === "D" || status === "M" || status === "T") current.changes.push({ status, path });
    else return undefined;
  }
  return commits;
}

/**
 * Where to cut a walk of `commits` (oldest first) into at most `parts` consecutive ranges of about the same
 * work, the patches of files its commits modify or rename: the index of each range's first commit after the
 * first range's. None when the patches are fewer than `perPart` for two ranges.
 */
export function walkCuts(commits: readonly RawCommit[], parts: number, perPart: number): number[] {
  const work = commits.map((c) => c.changes.reduce((n, ch) => n + (ch.status === "M" || ch.status === "R" ? 1 : 0), 0));
  const total = work.reduce((a, b) => a + b, 0);
  const ranges = Math.min(parts, Math.floor(total / Math.max(1, perPart)), commits.length);
  const cuts: number[] = [];
  let done = 0;
  for (let i = 0; i + 1 < commits.length && cuts.length < ranges - 1; i++) {
    done += work[i]!;
    if (done >= (total * (cuts.length + 1)) / ranges) cuts.push(i + 1);
  }
  return cuts;
}
