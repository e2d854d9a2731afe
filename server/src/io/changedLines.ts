/**
 * The lines of one file that `intent check` counts as changed, for the editor: the same base (`chooseBase`)
 * and the same diff (`parseRawPatch`; a file git is told not to look at diffed through a private index, as
 * for both), asked for one path and without blocking the language server while git runs. The base is chosen
 * again only when HEAD moves.
 */
import { textLines } from "../engine/lines";
import { chooseBaseAsync, type FileDiff, GitError, headRevision, parseRawPatch } from "./git";
import { gitExecFile } from "./gitRunner";
import { flaggedToDiff, privateIndex } from "./flaggedFiles";

/** A git that does not answer in this time is killed: the editor's findings for the file wait for it. */
const GIT_TIMEOUT_MS = 10_000;

export function gitAsync(cwd: string, args: readonly string[], env?: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    gitExecFile(cwd, args, { maxBuffer: 512 * 1024 * 1024, timeoutMs: GIT_TIMEOUT_MS, ...(env ? { env } : {}) }, (err, stdout, stderr) => {
      if (err) reject(new GitError(`git ${args[0]} failed in ${cwd}: ${(stderr || err.message).trim().split("\n")[0]}`));
      else resolve(stdout);
    });
  });
}

/**
 * The lines changed since `base` (`intent check`'s diff: zero context, renames followed), asked without
 * blocking; `paths` narrows it (none: the whole tree).
 */
export async function diffSince(root: string, base: string, paths: readonly string[] = [], env?: Record<string, string>): Promise<FileDiff[]> {
  const args = ["diff", "--relative", "-z", "--raw", "--patch", "--unified=0", "--no-color", "--no-ext-diff", "--no-textconv", "-M", base, "--", ...paths];
  return parseRawPatch(await gitAsync(root, args, env));
}

/** The base `intent check` compares with, per workspace root, kept while HEAD stays where it was. */
const bases = new Map<string, { head: string | undefined; rev: string | undefined }>();

/** Asked one workspace at a time (`changedLinesOf`'s queue), so the base is chosen once per HEAD. */
async function baseOf(root: string): Promise<string | undefined> {
  const head = headRevision(root);
  const known = bases.get(root);
  if (known && known.head === head) return known.rev;
  const ask = (args: readonly string[]) => gitAsync(root, args).catch(() => undefined);
  let rev: string | undefined;
  try {
    // not a git repository (or git is missing): `intent check` cannot run here either
    rev = known || (await ask(["rev-parse", "--show-toplevel"]))?.trim() ? (await chooseBaseAsync(root, ask)).rev : undefined;
  } catch {
    rev = undefined;
  }
  bases.set(root, { head, rev });
  return rev;
}

/**
 * 1-based lines of `path` (workspace-relative) in the working tree that differ from the base `intent check`
 * uses (`text`: its content there); every line of a file git does not track yet, none of a binary or git-ignored one. Undefined when the
 * workspace is not in a git repository.
 */
export function changedLinesOf(root: string, path: string, text: string): Promise<number[] | undefined> {
  // one git at a time per workspace: a rule change asks for every open document at once
  const run = (queues.get(root) ?? Promise.resolve()).then(() => askGit(root, path, text));
  const settled = run.catch(() => undefined);
  queues.set(root, settled);
  void settled.then(() => {
    if (queues.get(root) === settled) queues.delete(root);
  });
  return run;
}

const queues = new Map<string, Promise<unknown>>();

async function askGit(root: string, path: string, text: string): Promise<number[] | undefined> {
  const base = await baseOf(root);
  if (!base) return undefined;
  // git's diff, and whether git is told not to look at the file (then the text is diffed here), side by side
  const [diff, listed] = await Promise.all([diffSince(root, base, [path]), gitAsync(root, ["ls-files", "-v", "-z", "--", path])]);
  const flagged = flaggedToDiff(root, listed).includes(path);
  // a flagged file: what git says of it through a private index without the flag (io/flaggedFiles.ts)
  const index = flagged ? privateIndex() : undefined;
  let seen = diff;
  try {
    if (index) {
      await gitAsync(root, ["read-tree", base], index.env);
      seen = await diffSince(root, base, [path], index.env);
    }
  } finally {
    index?.dispose();
  }
  const file = seen.find((d) => d.path === path);
  if (file) return file.binary || file.status === "deleted" ? [] : file.lines;
  const untracked = (await gitAsync(root, ["ls-files", "--others", "--exclude-standard", "-z", "--", path])).split("\0").includes(path);
  return untracked && text !== "" ? textLines(text).map((_, i) => i + 1) : [];
}
