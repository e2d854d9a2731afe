/**
 * Following symlinks to where a path really leads: what the agent gate and the editor judge (`writeLanding`,
 * the kernel's resolution) and where our own files land (`landingPath`).
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, parse, relative, resolve } from "node:path";

/** Symbolic links followed before a path is given up on as a loop (Linux's own limit). */
const MAX_LINK_HOPS = 40;

/**
 * The absolute path where a write to `path` (relative to `root`) really lands: every symbolic link on the
 * way is followed, a dangling one too — writing through a link whose target does not exist yet creates that
 * target, so it is the target that counts, not the link. Parts that do not exist are taken as written.
 * Undefined for a link loop or an unreadable root. For intent-lsp's own files only, whose writer creates the
 * real folders itself (io/ownFiles.ts); a write by anyone else is judged by `resolveWorkspaceWrite`.
 */
export function landingPath(root: string, path: string): string | undefined {
  let current: string;
  try {
    current = realpathSync(root);
  } catch {
    return undefined;
  }
  const queue = (isAbsolute(path) ? relative(root, path) : path).split("/");
  let hops = 0;
  while (queue.length) {
    const part = queue.shift()!;
    // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: equivalent: `join` drops an empty or `.` part, so the part below leads to `current` itself, which is no link (no part that is a link is ever taken into it), and `current` stays
    if (part === "" || part === ".") continue;
    // Stryker disable next-line ConditionalExpression,StringLiteral,BlockStatement: equivalent: `join(current, "..")` is `dirname(current)`, and a parent of `current` is no link (no part that is a link is ever taken into `current`), so the part below sets the same folder
    if (part === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    let st: ReturnType<typeof lstatSync> | undefined;
    try {
      st = lstatSync(next);
    } catch {
      /* does not exist: taken as written (nothing below it is a link) */
    }
    if (st?.isSymbolicLink()) {
      if (++hops > MAX_LINK_HOPS) return undefined;
      let target: string | undefined;
      try {
        target = readlinkSync(next);
      } catch {
        /* told below */
      }
      // Stryker disable next-line ConditionalExpression: unreachable defence: lstat has just found a link at `next`, which reads unless something removes it in between, a race no test stages
      if (target === undefined) return undefined;
      queue.unshift(...target.split("/"));
      if (isAbsolute(target)) current = parse(target).root;
      continue;
    }
    current = next;
  }
  return current;
}

/**
 * Where a write through `spelling` (absolute, or relative to `root`) lands, as a path relative to the real
 * workspace root, or undefined when it lands outside the workspace or cannot be resolved safely
 * (`resolveWorkspaceWrite` says which and why). An agent writing `src/api/link` where `link` points at
 * `~/.ssh` must not pass as an edit inside `src/api/**`.
 */
export function realWorkspacePath(root: string, spelling: string): string | undefined {
  const where = resolveWorkspaceWrite(root, spelling);
  // Stryker disable next-line ConditionalExpression: equivalent: only an "inside" answer has a path, so the others give undefined either way
  return where.kind === "inside" ? where.path : undefined;
}

/** Where a write lands, seen from the workspace. */
export type WorkspaceWrite =
  | { kind: "inside"; path: string }
  | { kind: "outside" }
  /** The write would fail, or its landing cannot be known safely: a loop, an unreadable part, a name too long. */
  | { kind: "unresolvable"; reason: string };

/**
 * The location a write through `spelling` really reaches, judged against the real workspace root (see
 * `writeLanding`). A relative spelling is relative to `root`; `root` may itself be reached through links.
 */
export function resolveWorkspaceWrite(root: string, spelling: string): WorkspaceWrite {
  let realRoot: string;
  try {
    realRoot = realpathSync.native(root);
  } catch {
    return { kind: "unresolvable", reason: `the workspace ${root} cannot be read` };
  }
  const landing = writeLanding(spelling.startsWith("/") ? spelling : `${isAbsolute(root) ? root : resolve(root)}/${spelling}`);
  if (landing.kind === "fails") return { kind: "unresolvable", reason: landing.reason };
  const prefix = realRoot === "/" ? "/" : `${realRoot}/`;
  if (!landing.path.startsWith(prefix)) return { kind: "outside" };
  return { kind: "inside", path: landing.path.slice(prefix.length) };
}

/** Longest file name and path Linux accepts (NAME_MAX, PATH_MAX); a longer one fails to be written. */
const NAME_MAX = 255;
const PATH_MAX = 4095;

export type Landing = { kind: "file"; path: string } | { kind: "fails"; reason: string };

interface Part {
  name: string;
  /** Read from a symbolic link's target rather than written in the spelling. */
  viaLink: boolean;
}

/**
 * The absolute real path a write through the absolute `spelling` lands on, resolved as the kernel resolves
 * it: component by component, only `/` separating them (a backslash is part of a name), a symbolic link's
 * target substituted where the link is met, and `..` applied to the real folder reached so far — never to
 * the text. A write creates missing folders as the spelling names them (as agents' write tools do, `mkdir
 * -p` then write), and a dangling link as the last component creates its target. It fails — and the gate
 * denies — where the kernel would refuse: a link loop (more than 40 links), an unreadable folder, a file
 * used as a folder, a dangling link used as a folder, a spelling that names a folder, a name too long.
 */
export function writeLanding(spelling: string): Landing {
  if (!spelling.startsWith("/")) return fails(`${spelling} is not an absolute path`);
  if (Buffer.byteLength(spelling) > PATH_MAX) return fails(`the path is longer than ${PATH_MAX} bytes`);
  const queue: Part[] = spelling.split("/").map((name) => ({ name, viaLink: false }));
  let current = "/";
  /** Names below `current` that do not exist yet: the write creates them as folders. */
  let missing: string[] = [];
  /** Every folder the write creates on the way (`mkdir -p` of each folder the spelling names), `..` or not. */
  const created = new Set<string>();
  const below = () => [current === "/" ? "" : current, ...missing].join("/");
  let hops = 0;
  while (queue.length) {
    const { name, viaLink } = queue.shift()!;
    const last = queue.length === 0;
    if (last && (name === "" || name === "." || name === "..")) return fails(`${spelling} names a folder, not a file`);
    if (name === "" || name === ".") continue;
    if (Buffer.byteLength(name) > NAME_MAX) return fails(`a name in ${spelling} is longer than ${NAME_MAX} bytes`);
    if (missing.length) {
      // below a folder the write creates nothing is a link, and its `..` is the folder it was created in
      if (name === "..") missing.pop();
      else {
        missing.push(name);
        if (!last) created.add(below());
      }
      continue;
    }
    if (name === "..") {
      current = dirname(current);
      continue;
    }
    const next = current === "/" ? `/${name}` : `${current}/${name}`;
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(next);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT")
        return fails(`a folder on the way to ${spelling} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      // a folder a link leads to is not created by the write: the kernel stops there
      if (viaLink && !last && !created.has(next)) return fails(`${spelling} goes through a symbolic link to a folder that does not exist`);
      missing = [name];
      if (!last) created.add(next);
      continue;
    }
    if (st.isSymbolicLink()) {
      if (++hops > MAX_LINK_HOPS) return fails(`${spelling} meets more than ${MAX_LINK_HOPS} symbolic links (a loop)`);
      let target: string | undefined;
      try {
        target = readlinkSync(next);
      } catch {
        /* told below */
      }
      // Stryker disable next-line ConditionalExpression,StringLiteral: unreachable defence: lstat has just found a link at `next`, which reads unless something removes it in between, a race no test stages
      if (target === undefined) return fails(`a symbolic link on the way to ${spelling} cannot be read (it was removed while being followed)`);
      queue.unshift(...target.split("/").map((n) => ({ name: n, viaLink: true })));
      if (target.startsWith("/")) current = "/";
      continue;
    }
    if (!st.isDirectory() && !last) return fails(`a part of ${spelling} that must be a folder is a file`);
    current = next;
  }
  // `new/x/../x`: creating new/x/.. made x a folder, which the write then cannot open as a file
  if (missing.length && created.has(below())) return fails(`${spelling} names a folder that the write itself creates on the way`);
  // as the file system spells what exists: on a case- or normalization-insensitive one (macOS) `src/API`
  // and `src/api` are one folder, and it is the stored name that the scopes must judge
  const stored = realRootOf(current);
  return { kind: "file", path: missing.length ? [stored === "/" ? "" : stored, ...missing].join("/") : stored };
}

const fails = (reason: string): Landing => ({ kind: "fails", reason });

/** `root` with its links followed, or as given when it cannot be read (it may be created later). */
export function realRootOf(root: string): string {
  try {
    return realpathSync.native(root);
  } catch {
    return root;
  }
}
