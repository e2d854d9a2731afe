/**
 * Where sealed segments live in a git repository (docs/LEDGER.md "Segments"): blobs in the tree of the ref
 * `refs/intent/ledger`, one `<name>.seg` per segment, so that the sealed history is in git once and never
 * in the working tree. The working tree's manifest (engine/ledger/sealedManifest.ts) names the blobs a
 * branch reads; the ref only keeps them alive and carries them between clones. Two clones' refs merge as a
 * union of their trees (names are content hashes, so two entries of one name are one segment), which is
 * what `intent ledger fetch` and `push` do: no merge a person must resolve.
 *
 * Every git call here goes through io/gitRunner.ts, which keeps hooks off: `update-ref` and `push` would
 * otherwise run the repository's reference-transaction and pre-push hooks, commands intent-lsp does not run
 * unasked.
 */
import { type SealedFetchPlan, sealedFetchPlan } from "../../engine/ledger/sealedFetch";
import { gitSync } from "../gitRunner";

export const SEALED_REF = "refs/intent/ledger";
/** Where `intent ledger fetch` puts a remote's ref before taking its segments into the local one. */
export const remoteSealedRef = (remote: string) => `refs/intent/remotes/${remote}/ledger`;
const TIMEOUT_MS = 60_000;
/** git's identity for the ref's bookkeeping commits, whoever sealed: the commits carry no authorship. */
const COMMIT_ENV = {
  GIT_AUTHOR_NAME: "intent-lsp",
  GIT_AUTHOR_EMAIL: "intent-lsp@localhost",
  GIT_COMMITTER_NAME: "intent-lsp",
  GIT_COMMITTER_EMAIL: "intent-lsp@localhost",
};
const SEGMENT_ENTRY = /^100644 blob ([0-9a-f]{40}|[0-9a-f]{64})\t([0-9a-f]{64})\.seg$/;
const REMOTE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export class SealedRefError extends Error {
  override name = "SealedRefError";
}

interface Run {
  status: number | null;
  stdout: Buffer;
  stderr: string;
}

function run(root: string, args: readonly string[], opts: { input?: Buffer; env?: Record<string, string> } = {}): Run {
  const r = gitSync(root, args, {
    timeoutMs: TIMEOUT_MS,
    maxBuffer: 1 << 30,
    ...(opts.input ? { input: opts.input } : {}),
    ...(opts.env ? { env: opts.env } : {}),
  });
  // git that exits before reading all of its input (a folder that is not a repository) leaves an EPIPE, yet
  // it ran and answered: its exit code and message say what happened
  const answered = r.error && (r.error as NodeJS.ErrnoException).code === "EPIPE" && r.status !== null;
  if (r.error && !answered) {
    const why = (r.error as NodeJS.ErrnoException).code === "ENOENT" ? "git is not installed or not on PATH" : r.error.message;
    throw new SealedRefError(`could not run git ${args[0]} in ${root}: ${why}`);
  }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString("utf8") };
}

function must(root: string, args: readonly string[], opts?: { input?: Buffer; env?: Record<string, string> }): string {
  const r = run(root, args, opts);
  if (r.status !== 0) throw new SealedRefError(`git ${args.join(" ")} failed in ${root}: ${r.stderr.trim().split("\n")[0] || `exit code ${r.status}`}`);
  return r.stdout.toString("utf8").trim();
}

/** Whether the workspace is inside a git work tree (then segments go to the ref). */
export function inGitWorkTree(root: string): boolean {
  try {
    return run(root, ["rev-parse", "--is-inside-work-tree"]).stdout.toString("utf8").trim() === "true";
  } catch {
    return false;
  }
}

/**
 * The bytes of a blob, or undefined when this clone does not have it. Never fetched on demand: in a partial
 * clone git would go to the network for a missing blob, and a reader (a hook among them) must not wait on it.
 */
export function readBlob(root: string, blob: string): Buffer | undefined {
  // Stryker disable next-line ObjectLiteral,StringLiteral: equivalent: the git runner sets GIT_NO_LAZY_FETCH=1 and protocol.allow=never on every call that stays on this machine, this one among them; named here for the reader
  const r = run(root, ["cat-file", "blob", blob], { env: { GIT_NO_LAZY_FETCH: "1" } });
  return r.status === 0 ? r.stdout : undefined;
}

/** Stores the bytes as a blob; its id. */
export function writeBlob(root: string, bytes: Buffer): string {
  return must(root, ["hash-object", "-w", "--stdin"], { input: bytes });
}

function resolveRef(root: string, ref: string): string | undefined {
  const r = run(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  // Stryker disable next-line ConditionalExpression: equivalent: when `rev-parse --verify --quiet` fails it prints nothing, and every caller takes the empty text as it takes undefined (no ref)
  return r.status === 0 ? r.stdout.toString("utf8").trim() : undefined;
}

/** The segments a commit of the ref holds: name → blob. Entries that are not segments (SEGMENT_ENTRY) are ignored. */
function treeSegments(root: string, commit: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of must(root, ["ls-tree", commit]).split("\n")) {
    const m = SEGMENT_ENTRY.exec(line);
    if (m) out.set(m[2]!, m[1]!);
  }
  return out;
}

/**
 * Makes the ref hold these segments as well as its own, in a new commit whose parents are the ref and the
 * `others` given (other clones' refs); unchanged when it already holds them all. Safe against a concurrent
 * update: the ref moves only from the value read, and is read again when another writer moved it first.
 */
export function addToSealedRef(root: string, segments: ReadonlyMap<string, string>, others: readonly string[] = []): void {
  for (let attempt = 0; ; attempt++) {
    const old = resolveRef(root, SEALED_REF);
    const held = old ? treeSegments(root, old) : new Map<string, string>();
    const fresh = [...segments].filter(([name]) => !held.has(name));
    // Stryker disable next-line ConditionalExpression: cost only for `o !== old` (the ref is its own ancestor, so the check only saves starting git to learn it); the forms that keep or drop every other ref change the commit made, which the merge tests catch
    const parents = others.filter((o) => o !== old && !isAncestor(root, o, old));
    if (!fresh.length && !parents.length) return;
    let commit: string;
    if (!fresh.length && parents.length === 1 && (!old || isAncestor(root, old, parents[0]))) {
      commit = parents[0]!; // the other clone's ref already holds ours: fast-forward
    } else {
      const merged = new Map(held);
      for (const other of parents) for (const [name, blob] of treeSegments(root, other)) if (!merged.has(name)) merged.set(name, blob);
      for (const [name, blob] of fresh) merged.set(name, blob);
      // in any order: mktree sorts the entries it is given
      const entries = [...merged].map(([name, blob]) => `100644 blob ${blob}\t${name}.seg\n`);
      const tree = must(root, ["mktree"], { input: Buffer.from(entries.join("")) });
      const parentArgs = [...(old ? [old] : []), ...parents].flatMap((p) => ["-p", p]);
      commit = must(root, ["commit-tree", "--no-gpg-sign", tree, ...parentArgs, "-m", "intent-lsp: sealed ledger segments"], { env: COMMIT_ENV });
    }
    if (updateRef(root, commit, old)) return;
    if (attempt >= 5) throw new SealedRefError(`${SEALED_REF} kept moving while intent-lsp updated it; run the command again`);
  }
}

function isAncestor(root: string, maybe: string, of: string | undefined): boolean {
  return !!of && run(root, ["merge-base", "--is-ancestor", maybe, of]).status === 0;
}

function updateRef(root: string, to: string, from: string | undefined): boolean {
  return run(root, ["update-ref", "-m", "intent-lsp: seal", SEALED_REF, to, from ?? ""]).status === 0;
}

/** What `intent ledger fetch` asks of a remote. */
const sealedFetchRefspec = (remote: string) => `+${SEALED_REF}:${remoteSealedRef(remote)}`;
/**
 * The fetch refspec `intent init` configures, which brings a remote's sealed ledger with every `git fetch`
 * and `git pull`: a pattern, because git fails a fetch whose configured plain refspec names a ref the remote
 * does not have yet (a repository where nobody sealed).
 */
export const configuredSealedRefspec = (remote: string) => `+refs/intent/*:refs/intent/remotes/${remote}/*`;

/**
 * Makes `git fetch` from `remote` bring its sealed segments too (readers find a segment's blob whatever ref
 * holds it), so that a pull never leaves the manifest naming segments this clone lacks, unless one more
 * refspec would change what a plain `git fetch` or `git pull` does there (engine/ledger/sealedFetch.ts):
 * then the remote is left as it is and `intent ledger fetch` brings the segments. What it did, or that
 * there is no such remote (or no git).
 */
export function configureSealedFetch(root: string, remote = "origin"): SealedFetchPlan | { kind: "no-remote" } {
  checkRemoteName(remote);
  if (!inGitWorkTree(root)) return { kind: "no-remote" };
  const r = run(root, ["config", "--get-all", `remote.${remote}.fetch`]);
  if (r.status !== 0 && run(root, ["config", "--get", `remote.${remote}.url`]).status !== 0) return { kind: "no-remote" };
  const refspecs = r.stdout.toString("utf8").split("\n").filter(Boolean);
  const mirror =
    run(root, ["config", "--type=bool", "--get", `remote.${remote}.mirror`])
      .stdout.toString("utf8")
      .trim() === "true";
  const plan = sealedFetchPlan(refspecs, mirror, SEALED_REF, configuredSealedRefspec(remote));
  if (plan.kind === "add") must(root, ["config", "--add", `remote.${remote}.fetch`, configuredSealedRefspec(remote)]);
  return plan;
}

export function checkRemoteName(remote: string): void {
  if (!REMOTE_NAME.test(remote)) throw new SealedRefError(`"${remote}" is not a remote's name (letters, digits, ".", "_", "-"); \`git remote\` lists them`);
}

/**
 * Fetches the remote's sealed history and takes its segments into the local ref. False when the remote has
 * none yet.
 */
export function fetchSealedRef(root: string, remote: string): boolean {
  checkRemoteName(remote);
  const tracking = remoteSealedRef(remote);
  const has = run(root, ["ls-remote", "--exit-code", remote, SEALED_REF]);
  if (has.status === 2) return false;
  if (has.status !== 0) throw new SealedRefError(`git ls-remote ${remote} failed: ${has.stderr.trim().split("\n")[0] || `exit code ${has.status}`}`);
  must(root, ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote, sealedFetchRefspec(remote)]);
  const theirs = resolveRef(root, tracking);
  // Stryker disable next-line ConditionalExpression: unreachable defence for the true form: the fetch above succeeded (must throws otherwise), so it wrote the tracking ref; the false form fails the fetch tests
  if (theirs) addToSealedRef(root, new Map(), [theirs]);
  return true;
}

/** Takes the remote's segments in, then pushes the ref; retried when another clone pushed in between. */
export function pushSealedRef(root: string, remote: string): void {
  checkRemoteName(remote);
  for (let attempt = 0; ; attempt++) {
    fetchSealedRef(root, remote);
    if (!resolveRef(root, SEALED_REF)) throw new SealedRefError(`nothing to push: this clone has no ${SEALED_REF} (\`intent ledger compact\` makes it)`);
    const r = run(root, ["push", "--quiet", "--no-verify", remote, `${SEALED_REF}:${SEALED_REF}`]);
    if (r.status === 0) return;
    if (attempt >= 2) throw new SealedRefError(`git push ${remote} ${SEALED_REF} failed: ${r.stderr.trim().split("\n")[0] || `exit code ${r.status}`}`);
  }
}
