/**
 * The ledger as committed at HEAD, the anchor `intent verify` holds the working ledger to: the `prev` chain
 * proves that no record between two others was removed, but not that the newest ones, or all of them, still
 * are (a file emptied or cut short is a valid chain). Every record committed at HEAD must still be in the
 * live ledger or its sealed segments; git keeps the committed bytes, so the records missing are named.
 *
 * git is asked with `core.useReplaceRefs=false` (a replace ref must not stand in for the committed bytes), and
 * only "no HEAD yet" or "no such file in HEAD" (exit 1 of `rev-parse --verify --quiet`), or no repository
 * at all, means there is nothing to hold the file to: any other failure is told, never taken for that.
 */
import { createHash, type Hash } from "node:crypto";
import { findGitDir } from "../gitDir";
import { gitSpawn, gitSync } from "../gitRunner";

const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * The longest committed line kept whole to be read as a record when it is missing: a longer one is only
 * hashed as it streams (memory stays flat, time linear), and, missing, is told as removed unread.
 */
export const MAX_KEPT_LINE = 16 * 1024 * 1024;

/** One line of HEAD's ledger. */
export interface CommittedLine {
  /** The SHA-256 of what the chain hashes of it (engine/hashing.ts `chainBytes`: a final `\r` left out). */
  digest: string;
  /** Its bytes, unless it is longer than MAX_KEPT_LINE. */
  bytes?: Buffer;
  length: number;
}

/** The digest form the verifier keeps (binary, as latin1). */
const digestOf = (h: Hash) => h.digest().toString("latin1");

/**
 * Hands each line of the ledger as committed at HEAD to `each` (1-based; a part line at the end too, empty
 * when the file ends in a newline), reading git's output as it comes. Undefined when it was read, or when
 * there is nothing committed to hold the file to; else why HEAD's ledger could not be read.
 */
export async function forEachCommittedLine(
  root: string,
  ledgerPath: string,
  each: (line: CommittedLine, n: number) => void,
  /** Another commit to read it at (`MERGE_HEAD`). */
  rev = "HEAD",
): Promise<string | undefined> {
  const blob = committedBlob(root, ledgerPath, rev);
  if (typeof blob !== "object") return blob;
  return new Promise((settle) => {
    // Stryker disable next-line ObjectLiteral,ArrayDeclaration: equivalent: git cat-file blob reads no input, and its output is read from its pipes either way
    const child = gitSpawn(root, ["-c", "core.useReplaceRefs=false", "cat-file", "blob", blob.id], { stdio: ["ignore", "pipe", "pipe"] });
    let line = 0;
    let hash = createHash("sha256");
    let kept: Buffer[] | undefined = [];
    let length = 0;
    // a "\r" that ended the last piece: hashed if more of the line comes, left out if the line ends there
    let heldCr = false;
    let failed: string | undefined;
    let stderr = "";
    const add = (piece: Buffer) => {
      if (heldCr) hash.update("\r");
      heldCr = piece.length > 0 && piece[piece.length - 1] === CR;
      hash.update(heldCr ? piece.subarray(0, piece.length - 1) : piece);
      length += piece.length;
      if (kept && length > MAX_KEPT_LINE) kept = undefined;
      // copied: git's buffer is reused for the next chunk
      else kept?.push(Buffer.from(piece));
    };
    const end = () => {
      each({ digest: digestOf(hash), ...(kept ? { bytes: Buffer.concat(kept) } : {}), length }, ++line);
      hash = createHash("sha256");
      heldCr = false;
      kept = [];
      length = 0;
    };
    child.on("error", (e) => {
      failed ??= e.message;
    });
    child.stderr!.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    child.stdout!.on("data", (chunk: Buffer) => {
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
        add(chunk.subarray(start, nl));
        end();
        start = nl + 1;
      }
      add(chunk.subarray(start));
    });
    child.on("close", (code) => {
      if (failed === undefined && code === 0) {
        end();
        settle(undefined);
      } else settle(failed ?? (stderr.trim().split("\n")[0] || `git cat-file exited with code ${code}`));
    });
  });
}

/**
 * The bytes of a small file as committed at HEAD (the sealed manifest): undefined when there is nothing
 * committed there, a string saying why it could not be read, or the bytes.
 */
export function committedFile(root: string, path: string, rev = "HEAD"): Buffer | string | undefined {
  const blob = committedBlob(root, path, rev);
  if (typeof blob !== "object") return blob;
  const r = gitSync(root, ["-c", "core.useReplaceRefs=false", "cat-file", "blob", blob.id]);
  if (r.error) return r.error.message;
  return r.status === 0 ? r.stdout : r.stderr.toString("utf8").trim().split("\n")[0] || `git cat-file exited with code ${r.status}`;
}

/**
 * The names of the files HEAD's tree holds in the folder `path` (the segments folder): undefined when there
 * is no such folder committed, a string saying why git could not tell.
 */
export function committedFolder(root: string, path: string, rev = "HEAD"): string[] | string | undefined {
  const tree = committedBlob(root, path, rev);
  if (typeof tree !== "object") return tree;
  const r = gitSync(root, ["-c", "core.useReplaceRefs=false", "ls-tree", "-z", "--name-only", tree.id], { encoding: "utf8" });
  if (r.error || r.status !== 0) return (r.error?.message ?? r.stderr).trim().split("\n")[0] || `git ls-tree exited with code ${r.status}`;
  return r.stdout.split("\0").filter(Boolean);
}

/**
 * The merge-base of HEAD and `branch` (`intent verify --base`): the commit a branch's ledger is held to, so
 * that records the branch never had are not asked for. A string saying why when git cannot tell.
 */
export function mergeBase(root: string, branch: string): { rev: string } | string {
  if (!findGitDir(root)) return "not in a git repository";
  const r = gitSync(root, ["-c", "core.useReplaceRefs=false", "merge-base", "HEAD", "--", branch], { encoding: "utf8" });
  if (r.status === 0) return { rev: r.stdout.trim() };
  return r.error?.message ?? (r.stderr.trim().split("\n")[0] || `git merge-base found no common commit of HEAD and ${branch} (a shallow clone?)`);
}

/** The object `rev` holds at `path` (relative to the workspace, which may be a repository's subfolder). */
function committedBlob(root: string, path: string, rev = "HEAD"): { id: string } | string | undefined {
  const named = gitSync(root, ["-c", "core.useReplaceRefs=false", "rev-parse", "--verify", "--quiet", `${rev}:./${path}`], { encoding: "utf8" });
  if (named.status === 0) return { id: named.stdout.trim() };
  // no HEAD yet, or no such file in it: nothing was committed
  if (named.status === 1) return undefined;
  // not in a repository (git is not needed outside one); in one, git failing is said
  if (!findGitDir(root)) return undefined;
  return named.error?.message ?? (named.stderr.trim().split("\n")[0] || `git rev-parse exited with code ${named.status}`);
}
