/**
 * The adoption point read, and what git says of a file at it (engine/adoption.ts has the rule): the file's
 * path and content at the adoption commit, and who wrote each of its lines there. Git answers within a bound
 * or not at all (io/boundedGit.ts): without an answer, a line stays "untraced", never guessed older.
 */
import { type Adoption, type AdoptedLine, type GitAuthor, keptSinceAdoption, parseAdoption, parseBlamePorcelain } from "../engine/adoption";
import { ADOPTION_FILE } from "../engine/workspaceFiles";
import { boundedGit, boundedGitAsync, type GitAnswer } from "./boundedGit";
import { catFileBatch, catFileBatchAsync, headRevision } from "./git";
import { readOwnFile } from "./ownFiles";

/** How long one git question about the adoption commit may take. */
const GIT_MS = 30_000;

/** The recorded adoption point; undefined when there is none; a problem when the file cannot be used. */
export function readAdoption(root: string): Adoption | { problem: string } | undefined {
  let text: string | undefined;
  try {
    text = readOwnFile(root, ADOPTION_FILE);
  } catch (e) {
    return { problem: `${ADOPTION_FILE}: ${(e as Error).message}` };
  }
  if (text === undefined) return undefined;
  const parsed = parseAdoption(text);
  return "problem" in parsed ? { problem: `${ADOPTION_FILE}: ${parsed.problem}` } : parsed;
}

/** `readAdoption` for the doors that only use it: a file that cannot be used counts as none. */
export function adoptionOf(root: string): Adoption | undefined {
  const a = readAdoption(root);
  return a && !("problem" in a) ? a : undefined;
}

const renameArgs = (commit: string) => ["diff", "--no-ext-diff", "--no-textconv", "-M", "--name-status", "-z", "--relative", commit, "HEAD", "--"];
const blobArgs = (commit: string, then: string) => ["cat-file", "blob", `${commit}:./${then}`];
const blameArgs = (commit: string, then: string) => ["blame", "--porcelain", "--no-textconv", commit, "--", then];

/**
 * The paths HEAD's files had at the adoption commit when they were renamed since (`git diff -M` between the
 * two, as `git log --follow` finds them): current path → path then. Undefined: git did not say.
 */
function renamesOf(diff: GitAnswer | undefined): Map<string, string> | undefined {
  if (!diff?.ok) return undefined;
  const out = new Map<string, string>();
  const fields = diff.out.split("\0");
  for (let i = 0; i < fields.length - 1; ) {
    const status = fields[i++]!;
    if (!status.startsWith("R")) {
      i++;
      continue;
    }
    const from = fields[i++]!;
    out.set(fields[i++]!, from);
  }
  return out;
}

/** A file as it was at the adoption commit, with the author git gives each of its lines there. */
export interface AdoptionSource {
  text: string;
  authors: readonly (GitAuthor | undefined)[];
}

/**
 * The file at the adoption commit from git's answers: its content there (not ok: it did not exist, so every
 * line came after: null) and its blame there (without one, its lines have no author). Undefined when git
 * could not say.
 */
function sourceOf(blob: GitAnswer | undefined, blame: GitAnswer | undefined): AdoptionSource | null | undefined {
  if (!blob) return undefined;
  if (!blob.ok) return null;
  return { text: blob.out, authors: (blame?.ok && parseBlamePorcelain(blame.out)) || [] };
}

/** The lines of a file now (`text`) kept from its source at the adoption commit (none when it had none). */
export function keptFrom(source: AdoptionSource | null, text: string): (AdoptedLine | undefined)[] {
  return source ? keptSinceAdoption(source.text, text, source.authors) : [];
}

/** The file `path` (of HEAD) as it was at the adoption commit, blocking: for a command line. */
export function adoptionSourceSync(root: string, adoption: Adoption, path: string): AdoptionSource | null | undefined {
  const renames = renamesOf(boundedGit(root, renameArgs(adoption.commit), { timeoutMs: GIT_MS }));
  if (!renames) return undefined;
  const then = renames.get(path) ?? path;
  const blob = boundedGit(root, blobArgs(adoption.commit, then), { timeoutMs: GIT_MS });
  return sourceOf(blob, blob?.ok ? boundedGit(root, blameArgs(adoption.commit, then), { timeoutMs: GIT_MS }) : undefined);
}

/**
 * The renames since the adoption commit, asked once per workspace, adoption commit and HEAD (each document the
 * editor opens needs them, and the whole tree's rename detection is the dearest of the three questions). A
 * few kept: a HEAD that moves asks again.
 */
const renamesAsked = new Map<string, Promise<Map<string, string> | undefined>>();
const RENAMES_KEPT = 8;

function renamesSince(root: string, commit: string): Promise<Map<string, string> | undefined> {
  const head = headRevision(root);
  const key = `${root}\0${commit}\0${head}`;
  let asked = renamesAsked.get(key);
  if (!asked || head === undefined) {
    asked = boundedGitAsync(root, renameArgs(commit), { timeoutMs: GIT_MS }).then(renamesOf);
    // an answer git could not give is asked again next time
    void asked.then((r) => r === undefined && renamesAsked.delete(key));
    if (renamesAsked.size >= RENAMES_KEPT) renamesAsked.clear();
    renamesAsked.set(key, asked);
  }
  return asked;
}

/** `adoptionSourceSync` in the background, for the editor (it never waits for a process). */
export async function adoptionSource(root: string, adoption: Adoption, path: string): Promise<AdoptionSource | null | undefined> {
  const renames = await renamesSince(root, adoption.commit);
  if (!renames) return undefined;
  const then = renames.get(path) ?? path;
  const blob = await boundedGitAsync(root, blobArgs(adoption.commit, then), { timeoutMs: GIT_MS });
  return sourceOf(blob, blob?.ok ? await boundedGitAsync(root, blameArgs(adoption.commit, then), { timeoutMs: GIT_MS }) : undefined);
}

/** Each line of `text` (the file `path` now) kept since the adoption commit, blocking; undefined when git could not say. */
export function adoptedLinesSync(root: string, adoption: Adoption, path: string, text: string): (AdoptedLine | undefined)[] | undefined {
  const source = adoptionSourceSync(root, adoption, path);
  return source === undefined ? undefined : keptFrom(source, text);
}

/** The paths a batch can ask for: one with a line break cannot be named on its line (its lines stay untraced). */
const askable = (paths: readonly string[]) => paths.filter((p) => !/[\n\r]/.test(p));

/** Each path's object name at the adoption commit, under the name it had there. */
const blobNames = (adoption: Adoption, paths: readonly string[], renames: Map<string, string>) =>
  paths.map((p) => `${adoption.commit}:./${renames.get(p) ?? p}`);

/** How long reading every counted file at the adoption commit may take (one git process). */
const BATCH_MS = 120_000;

/**
 * The counted files' contents at the adoption commit, read at once (one `git diff -M` for the renames since,
 * one `git cat-file --batch` for the contents): what `intent stats` and the report split each file's
 * unexplained lines by. Without git's answer every line stays untraced (`keptOf` undefined).
 */
export class AdoptionTexts {
  private constructor(private readonly then: Map<string, string | null>) {}

  /** The contents of `paths` (files of the working tree) at `adoption`'s commit; undefined when git did not say. */
  static read(root: string, adoption: Adoption, paths: readonly string[]): AdoptionTexts | undefined {
    const renames = renamesOf(boundedGit(root, renameArgs(adoption.commit), { timeoutMs: GIT_MS }));
    if (!renames) return undefined;
    const asked = askable(paths);
    return AdoptionTexts.of(asked, catFileBatch(root, blobNames(adoption, asked, renames), BATCH_MS));
  }

  /** `read` in the background, for the editor's report. */
  static async readAsync(root: string, adoption: Adoption, paths: readonly string[]): Promise<AdoptionTexts | undefined> {
    const renames = renamesOf(await boundedGitAsync(root, renameArgs(adoption.commit), { timeoutMs: GIT_MS }));
    if (!renames) return undefined;
    const asked = askable(paths);
    return AdoptionTexts.of(asked, await catFileBatchAsync(root, blobNames(adoption, asked, renames), BATCH_MS));
  }

  private static of(asked: readonly string[], blobs: (Buffer | undefined)[] | undefined): AdoptionTexts | undefined {
    if (!blobs) return undefined;
    return new AdoptionTexts(new Map(asked.map((p, i) => [p, blobs[i] === undefined ? null : blobs[i]!.toString("utf8")])));
  }

  /** What was read of `path` (null: no such file at the adoption commit; undefined: not read), to hand to another thread. */
  textOf(path: string): string | null | undefined {
    return this.then.get(path);
  }

  /** Texts another thread read (`textOf`). */
  static fromTexts(texts: Iterable<[string, string | null]>): AdoptionTexts {
    return new AdoptionTexts(new Map(texts));
  }

  /** `keptSinceAdoption` of a file now (`text`), without authors; undefined when it was not read. */
  keptOf(path: string, text: string): (AdoptedLine | undefined)[] | undefined {
    const then = this.then.get(path);
    if (then === undefined) return undefined;
    return then === null ? [] : keptSinceAdoption(then, text);
  }
}

/**
 * The commit `intent init` records as the adoption point, and why: the first parent of the commit that first
 * added the ledger, when the ledger is already in HEAD's history (the code before the ledger existed), else
 * HEAD (the code as it is when intent-lsp is taken up). Undefined when the repository has no commit yet (every
 * line is then written after adoption) or git cannot say.
 */
export function adoptionPoint(root: string, ledgerPath: string): { commit: string; why: string } | undefined {
  const ask = (args: string[]) => boundedGit(root, args, { timeoutMs: GIT_MS });
  const head = ask(["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
  if (!head?.ok) return undefined;
  const added = ask(["log", "--diff-filter=A", "--format=%H", "--reverse", "HEAD", "--", ledgerPath]);
  if (!added?.ok) return undefined;
  const first = added.out.split("\n")[0]?.trim();
  if (!first) return { commit: head.out.trim(), why: "HEAD: no commit holds the ledger yet" };
  const before = ask(["rev-parse", "--verify", "-q", `${first}^1^{commit}`]);
  if (!before) return undefined;
  return before.ok
    ? { commit: before.out.trim(), why: `the commit before ${first.slice(0, 12)}, which added the ledger` }
    : // the ledger came with the first commit: nothing was there before it
      undefined;
}
