/**
 * git-ai's notes as they are in a repository (`refs/notes/ai`; engine/ledger/gitAiNote.ts): every note, the
 * commit it is attached to with that commit's time, and the content of the files it names in that commit.
 * Read with git's plumbing through the runner (io/gitRunner.ts), which lets git run no hook or configured
 * program: `git notes list`, one `git cat-file --batch` for the notes and one for the files, one `git log`.
 */
import type { Identity } from "@shared/settings";
import type { TraceRecord } from "@shared/agentTrace";
import { parseGitAiNote, type GitAiNote } from "../engine/ledger/gitAiNote";
import { gitAiRecords, type NoteAtCommit } from "../engine/ledger/gitAiRecords";
import { catFileBatch, runGit } from "./git";
import { exportLines } from "./ledger/compact";
import { appendAll } from "../engine/appendAll";

export const GIT_AI_REF = "refs/notes/ai";

/** A git answer may take this long for a repository's whole history of notes. */
const BATCH_TIMEOUT_MS = 120_000;

export interface GitAiNotes {
  notes: NoteAtCommit[];
  /** Notes that could not be read, with why. */
  unreadable: { commit: string; why: string }[];
}

export function readGitAiNotes(root: string): GitAiNotes {
  const listed = listNotes(root);
  if (!listed.length) return { notes: [], unreadable: [] };
  const blobs = catFileBatch(
    root,
    listed.map((n) => n.blob),
    BATCH_TIMEOUT_MS,
  );
  if (!blobs) throw new Error(`git could not read the notes of ${GIT_AI_REF} in ${root}`);
  const times = commitTimes(
    root,
    listed.map((n) => n.commit),
  );
  const unreadable: GitAiNotes["unreadable"] = [];
  const parsed: { commit: string; note: GitAiNote }[] = [];
  listed.forEach((n, i) => {
    const bytes = blobs[i];
    if (bytes === undefined) {
      unreadable.push({ commit: n.commit, why: "git has no such note" });
      return;
    }
    try {
      parsed.push({ commit: n.commit, note: parseGitAiNote(bytes.toString("utf8")) });
    } catch (e) {
      unreadable.push({ commit: n.commit, why: (e as Error).message });
    }
  });
  // the files the notes name, in their commits: one batch for all
  const names = parsed.flatMap((p) => p.note.files.filter((f) => !/[\n\r]/.test(f.path)).map((f) => `${p.commit}:${f.path}`));
  const contents = catFileBatch(root, names, BATCH_TIMEOUT_MS);
  if (!contents) throw new Error(`git could not read the files the notes of ${GIT_AI_REF} name, in ${root}`);
  const byName = new Map(names.map((name, i) => [name, contents[i]]));
  const notes = parsed.flatMap(({ commit, note }) => {
    const time = times.get(commit);
    if (time === undefined) {
      unreadable.push({ commit, why: "the note is attached to a commit git does not have" });
      return [];
    }
    return [{ commit, time, note, content: (path: string) => byName.get(`${commit}:${path}`)?.toString("utf8") }];
  });
  return { notes, unreadable };
}

/** `git notes list`: each note's blob and the object it is attached to; none when the ref does not exist. */
function listNotes(root: string): { blob: string; commit: string }[] {
  const ref = runGit(root, ["for-each-ref", "--format=%(objectname)", GIT_AI_REF]).trim();
  if (!ref) return [];
  return runGit(root, ["notes", `--ref=${GIT_AI_REF}`, "list"])
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [blob, commit] = line.split(" ");
      return { blob: blob!, commit: commit! };
    })
    .filter((n) => /^[0-9a-f]{40,64}$/.test(n.blob) && /^[0-9a-f]{40,64}$/.test(n.commit));
}

/** Each commit's committer time, ISO 8601 in UTC (whole seconds, as git keeps it). */
function commitTimes(root: string, commits: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  // commits on the command line: each is 40 or 64 hex digits, checked above; batched to stay under argv limits
  for (let i = 0; i < commits.length; i += 500) {
    const text = runGit(root, ["log", "--no-walk=unsorted", "--format=%H %ct", ...commits.slice(i, i + 500)]);
    for (const line of text.split("\n")) {
      const [sha, seconds] = line.split(" ");
      if (sha && seconds && /^\d+$/.test(seconds)) out.set(sha, new Date(Number(seconds) * 1000).toISOString().replace(".000Z", "Z"));
    }
  }
  return out;
}

/** What `intent import git-ai` would do in a workspace: every record the notes give, and those not yet in the ledger. */
export interface GitAiImportPlan {
  noteCount: number;
  /** Every record the notes give, oldest first. */
  records: TraceRecord[];
  /** Those whose id the ledger does not hold yet. */
  fresh: TraceRecord[];
  unreadable: GitAiNotes["unreadable"];
  /** Parts of notes that give no record, with why. */
  skipped: string[];
}

/**
 * The plan for the workspace at `root` (its ledger at `ledgerPath`). The notes name files from the
 * repository's top; the ledger from the workspace's, so files outside the workspace are left out.
 */
export function gitAiImportPlan(root: string, ledgerPath: string, identity: Pick<Identity, "recordEmail">): GitAiImportPlan {
  const prefix = runGit(root, ["rev-parse", "--show-prefix"]).trim();
  const { notes, unreadable } = readGitAiNotes(root);
  const records: TraceRecord[] = [];
  const skipped: string[] = [];
  for (const n of notes) {
    const files = n.note.files.filter((f) => f.path.startsWith(prefix)).map((f) => ({ ...f, path: f.path.slice(prefix.length) }));
    const made = gitAiRecords({ ...n, note: { ...n.note, files }, content: (path) => n.content(prefix + path) }, identity);
    appendAll(records, made.records);
    appendAll(skipped, made.skipped);
  }
  records.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const present = recordIds(root, ledgerPath);
  return { noteCount: notes.length + unreadable.length, records, fresh: records.filter((r) => !present.has(r.id)), unreadable, skipped };
}

/** The ids of the records the ledger holds, sealed or live. */
function recordIds(root: string, ledgerPath: string): Set<string> {
  const ids = new Set<string>();
  for (const line of exportLines(root, ledgerPath)) {
    const m = /"id"\s*:\s*"([^"]{1,200})"/.exec(line.toString("utf8"));
    if (m) ids.add(m[1]!);
  }
  return ids;
}

/** The lines a set of imported records claims. */
export function claimedLines(records: readonly TraceRecord[]): number {
  return records.reduce((n, r) => n + r.files[0]!.conversations[0]!.ranges.reduce((k, x) => k + x.end_line - x.start_line + 1, 0), 0);
}
