/**
 * `intent verify` over the whole history (docs/LEDGER.md "Segments"): every sealed segment, then the live
 * ledger, as one chain of lines. A segment is checked as a file too: its bytes must hash to its name (a
 * changed byte anywhere is named), its predecessor must be present, and it must decode.
 */
import { LedgerVerifier, verifyLedgerFile, type VerifyProblem, type VerifyReport } from "./verify";
import {
  readManifest,
  readSegmentFile,
  remedyFor,
  sealedLines,
  sealedManifestPath,
  segmentIntact,
  segmentNames,
  segmentsDir,
  segmentName,
  SegmentReadError,
  SegmentRefusedError,
  type SegmentFile,
} from "./segments";
import { orderSegments } from "../../engine/ledger/segment";
import { detectDialect } from "../../engine/ledger/read";
import { isBlankBytes } from "../../engine/ledger/blankLine";
import { committedFile, committedFolder, forEachCommittedLine, mergeBase } from "./committedLedger";
import { parseManifest } from "../../engine/ledger/sealedManifest";
import { checkOwnRead } from "../ownFiles";
import { realWorkspacePath } from "../realPath";
import { CONFIG_FILE } from "../../engine/workspaceFiles";
import { parseConfig } from "../../engine/settings";
import { defaultSettings } from "@shared/settings";

export interface WorkspaceVerifyReport extends VerifyReport {
  /** Segments read (intact or not). */
  segments: number;
}

/**
 * Verifies the sealed segments and the live ledger; undefined when there is neither. `base`: a branch the
 * ledger is also held to (`intent verify --base`), at its merge-base with HEAD: every record committed there
 * must still be held (in CI, a branch that cut or rewrote committed records fails, which its own commits hide
 * from the hold to HEAD).
 */
export async function verifyWorkspaceLedger(root: string, ledgerPath: string, base?: string): Promise<WorkspaceVerifyReport | undefined> {
  // a ledger linked out of the workspace is not read: its lines would be quoted
  checkOwnRead(root, ledgerPath);
  const problems: VerifyProblem[] = [];
  const segments: SegmentFile[] = [];
  const names = segmentNames(root, ledgerPath);
  for (const p of readManifest(root, ledgerPath).problems)
    problems.push({ path: sealedManifestPath(ledgerPath), line: p.line, kind: "segment", message: p.message });
  for (const name of names) {
    try {
      segments.push(readSegmentFile(root, ledgerPath, name));
    } catch (e) {
      const at = e instanceof SegmentReadError ? { path: e.file, line: e.line } : { path: `${segmentsDir(ledgerPath)}/${name}.seg`, line: 1 };
      problems.push({ ...at, kind: "segment", message: (e as Error).message });
    }
  }
  const present = new Set(names);
  for (const s of segments) {
    if (!segmentIntact(s)) problems.push(notItsName(s));
    if (s.header.after !== null && !present.has(s.header.after))
      problems.push({
        path: s.rel,
        line: 1,
        kind: "chain",
        message: `it was sealed after segment ${s.header.after}, which is missing: a segment was removed (or not fetched)`,
      });
  }

  // one numbering across the segments and the live file; problems are told in each file's own lines
  const starts: { first: number; path?: string }[] = [];
  let next = 1;
  const locate = (line: number) => {
    let i = starts.length - 1;
    while (i > 0 && starts[i]!.first > line) i--;
    const s = starts[i];
    return s ? { path: s.path, line: line - s.first + 1 } : { path: undefined, line };
  };
  const name = (line: number) => {
    const at = locate(line);
    return at.path ? `${at.path}:${at.line}` : `line ${at.line}`;
  };
  const verifier = new LedgerVerifier(name);
  // where each segment's lines are numbered
  const sealed: { first: number; lines: number; name: string }[] = [];
  for (const segment of orderSegments(segments)) {
    // each segment numbered from its own first line, duplicates across segments counted once
    starts.push({ first: next, path: segment.rel });
    sealed.push({ first: next, lines: segment.header.lines, name: segment.name });
    let last = 0;
    try {
      for (const { bytes, line } of sealedLines([segment])) {
        verifier.addLine(bytes, next + line - 1, true);
        last = line;
      }
    } catch (e) {
      if (e instanceof SegmentRefusedError) problems.push({ path: e.file, line: e.line, kind: "segment", message: e.message });
      else problems.push({ path: segment.rel, line: last + 1, kind: "unreadable", message: (e as Error).message });
    }
    next += segment.header.lines;
  }
  starts.push({ first: next });
  const live = await verifyLedgerFile(`${root}/${ledgerPath}`, undefined, verifier, next);
  // what the chain cannot show: records committed at HEAD that are gone (a file cut short, emptied or deleted)
  const unreadSegments = problems.some((p) => p.kind === "segment" || p.kind === "unreadable");
  // held to the ledger committed at its path, and at the one HEAD's settings name when that differs: a
  // ledger moved since (config.jsonc) keeps the records committed
  // (and at the path it really is at, when a folder on the way is a link inside the workspace)
  // and records added since are only appended: a line before the last committed one that HEAD lacks was put there
  const sinceCommit: VerifyProblem[] = [];
  for (const committedPath of new Set([ledgerPath, realWorkspacePath(root, ledgerPath) ?? ledgerPath, committedLedgerPath(root) ?? ledgerPath])) {
    const held = new Set<number>();
    problems.push(...(await removedSinceCommit(root, committedPath, verifier, unreadSegments, held)));
    problems.push(...segmentsGoneSinceCommit(root, committedPath, present));
    // a segment HEAD names holds committed records too, wherever they were sealed from
    const names = committedSegmentNames(root, committedPath);
    const committedSealed = sealed.filter((s) => names.has(s.name));
    for (const s of committedSealed) held.add(s.first + s.lines - 1);
    const inCommittedSegment = (line: number) => committedSealed.some((s) => line >= s.first && line < s.first + s.lines);
    const merging = await mergingIn(root, committedPath, verifier);
    const exempt = (line: number) => held.has(line) || merging.has(line) || inCommittedSegment(line);
    sinceCommit.push(...insertedSinceCommit(committedPath, verifier, held, exempt, locate));
  }
  if (base !== undefined) problems.push(...(await removedSinceBase(root, ledgerPath, base, verifier, unreadSegments, present)));
  if (!live && !segments.length && !problems.length) return undefined;
  const report = verifier.report();
  const all = [
    ...problems,
    ...[...report.problems, ...sinceCommit].map((p) => {
      const at = locate(p.line);
      return at.path ? { ...p, path: at.path, line: at.line } : { ...p, line: at.line };
    }),
  ];
  return { ok: all.every((p) => p.kind === "legacy"), records: report.records, problems: all, segments: segments.length };
}

/** The records and segments committed at the merge-base of HEAD and `base` that are held no more. */
async function removedSinceBase(
  root: string,
  ledgerPath: string,
  base: string,
  verifier: LedgerVerifier,
  unreadSegments: boolean,
  present: ReadonlySet<string>,
): Promise<VerifyProblem[]> {
  const fork = mergeBase(root, base);
  if (typeof fork === "string")
    return [
      {
        line: 1,
        kind: "unreadable",
        message: `the ledger cannot be held to ${base}: ${fork}; fetch the branch and its history (in CI: \`fetch-depth: 0\`) and verify again`,
      },
    ];
  const short = fork.rev.slice(0, 12);
  const at: Anchor = { rev: fork.rev, shown: short, label: `the merge-base with ${base} (${short})`, since: `the merge-base with ${base}` };
  return [...(await removedSinceCommit(root, ledgerPath, verifier, unreadSegments, new Set(), at)), ...segmentsGoneSinceCommit(root, ledgerPath, present, at)];
}

/** The commit the ledger is held to, as git names it, as messages name it, and what "since" it says. */
interface Anchor {
  rev: string;
  /** How a path at it is shown (`HEAD:<ledger>`). */
  shown: string;
  label: string;
  since: string;
}
const HEAD_ANCHOR: Anchor = { rev: "HEAD", shown: "HEAD", label: "HEAD", since: "the last commit" };

/**
 * The records of the ledger as committed at HEAD that neither the live ledger nor a sealed segment holds
 * (`verifier` has read them all), told as runs of HEAD's lines with no record still held between them. Lines
 * of HEAD that are not records (blank, torn, foreign text) may be cleaned up by hand and are not asked for.
 */
async function removedSinceCommit(
  root: string,
  ledgerPath: string,
  verifier: LedgerVerifier,
  unreadSegments: boolean,
  /** Given the line (the verifier's numbering) of each record of HEAD that is still held. */
  held: Set<number>,
  at: Anchor = HEAD_ANCHOR,
): Promise<VerifyProblem[]> {
  const path = `${at.shown}:${ledgerPath}`;
  const runs = new LineRuns();
  // lines of HEAD that are there and that are no record: a ledger that is all such lines holds nothing
  // verify can hold the file to (a Git LFS pointer, an encrypted file)
  let lines = 0;
  let recordish = false;
  const unreadable = await forEachCommittedLine(
    root,
    ledgerPath,
    (committed, line) => {
      if (committed.bytes !== undefined && isBlankBytes(committed.bytes)) return;
      lines++;
      // both digests leave out a final "\r": a CRLF checkout holds the same lines
      const holding = verifier.lineOf(committed.digest);
      if (holding !== undefined) {
        held.add(holding);
        recordish = true;
        runs.end();
        return;
      }
      // a line too long to keep is told as removed unread: a record may be that long
      if (committed.bytes !== undefined && !isRecordLine(committed.bytes)) return;
      recordish = true;
      runs.add(line);
    },
    at.rev,
  );
  if (unreadable !== undefined)
    return [
      {
        path,
        line: 1,
        kind: "unreadable",
        message: `the ledger as committed at ${at.label} cannot be read (${unreadable}), so records removed since ${at.since} cannot be told; fetch the commit's objects (\`git fetch\`) and verify again`,
      },
    ];
  if (lines > 0 && !recordish)
    return [
      {
        path,
        line: 1,
        kind: "unreadable",
        message: `the ledger as committed at ${at.label} holds no record (${lines} line${lines === 1 ? "" : "s"}, none of them a record: a Git LFS pointer, or an encrypted file?), so records removed since ${at.since} cannot be told; commit the ledger as the plain text it is (no filter for it in .gitattributes) and verify again`,
      },
    ];
  return runs.runs.map(({ first, last, count }) => ({
    path,
    line: first,
    kind: "removed" as const,
    message: `${count === 1 ? `this record, committed at ${at.label}, is` : `these ${count} records (${at.label}'s lines ${first}-${last}), committed at ${at.label}, are`} ${
      unreadSegments
        ? "in neither the ledger nor a sealed segment that could be read: repair the segments reported here and verify again"
        : `in neither the ledger nor its sealed segments: the ledger was cut short, emptied or rewritten since ${at.since}. \`git show ${path}\` still holds ${count === 1 ? "it" : "them"}: put ${count === 1 ? "it" : "them"} back in place (the lines written since the commit stay after them) and verify again`
    }`,
  }));
}

/**
 * Lines of the ledger (sealed and live, as the verifier numbers them) that the ledger committed at HEAD lacks
 * and that stand before a line it holds (`held`), told as runs with no held line between them. Records are only appended, and git puts HEAD's lines before another branch's when it merges
 * (`merge=union`, a rebase, a stash): such a line was put there since the last commit, by hand or by a tool
 * that rewrote the file. A forged record with a `prev` that matches keeps the chain whole; this finds it.
 */
function insertedSinceCommit(
  ledgerPath: string,
  verifier: LedgerVerifier,
  held: ReadonlySet<number>,
  /**
   * Lines that are no insertion: HEAD's, those of a segment HEAD names, and those of a commit being merged in
   * (`mergingIn`: where a person resolving a conflict put them is theirs to choose).
   */
  exempt: (line: number) => boolean,
  /** Where a line of the verifier's numbering is: a segment's, or the live file's (no path). */
  locate: (line: number) => { path?: string | undefined; line: number },
): VerifyProblem[] {
  let lastHeld = -1;
  for (const line of held) if (line > lastHeld) lastHeld = line;
  const runs = new LineRuns();
  for (const line of verifier.lines()) {
    // (a line that is no record, a conflict marker say, is told as unreadable already)
    if (line >= lastHeld || !verifier.isRecord(line)) continue;
    if (exempt(line)) runs.end();
    else runs.add(line);
  }
  const named = (line: number) => {
    const at = locate(line);
    return at.path ? `${at.path}:${at.line}` : `line ${at.line}`;
  };
  return runs.runs.map(({ first, last, count }) => ({
    line: first,
    kind: "inserted" as const,
    message: `${count === 1 ? "this line is" : `these ${count} lines (${locate(first).line}-${locate(last).line}) are`} not in the ledger committed at HEAD (\`HEAD:${ledgerPath}\`), yet ${count === 1 ? "stands" : "stand"} before records that are (the last at ${named(lastHeld)}): records are only appended, so ${count === 1 ? "it was" : "they were"} put there since the last commit, by hand or by a tool that rewrote the file. \`git diff HEAD -- ${ledgerPath}\` shows what changed since; remove what no writer appended and verify again`,
  }));
}

/** Lines told together: each run holds lines with no other line between them that ends it (`end`). */
class LineRuns {
  readonly runs: { first: number; last: number; count: number }[] = [];
  private open = false;

  add(line: number): void {
    const run = this.runs[this.runs.length - 1];
    if (this.open && run) {
      run.last = line;
      run.count++;
    } else this.runs.push({ first: line, last: line, count: 1 });
    this.open = true;
  }

  end(): void {
    this.open = false;
  }
}

/** The segments HEAD's sealed manifest names, and those HEAD's segments folder holds (the folder store). */
function committedSegmentNames(root: string, ledgerPath: string): Set<string> {
  const names = new Set<string>();
  const manifest = committedFile(root, sealedManifestPath(ledgerPath));
  if (manifest instanceof Buffer) for (const e of parseManifest(manifest.toString("utf8")).entries) names.add(e.name);
  const folder = committedFolder(root, segmentsDir(ledgerPath));
  if (Array.isArray(folder)) for (const f of folder) if (f.endsWith(".seg")) names.add(f.slice(0, -".seg".length));
  return names;
}

/** What git names the commit an operation in progress brings in: a merge, a cherry-pick, a revert, a rebase's step. */
const MERGING_HEADS = ["MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD"];

/**
 * The lines (the verifier's numbering) of the ledger as each commit being merged in holds it: a conflict in the
 * ledger (a repository without `merge=union` for it) may be resolved with that side's lines first. A side that
 * cannot be read exempts nothing.
 */
async function mergingIn(root: string, ledgerPath: string, verifier: LedgerVerifier): Promise<Set<number>> {
  const lines = new Set<number>();
  for (const rev of MERGING_HEADS) {
    await forEachCommittedLine(
      root,
      ledgerPath,
      (committed) => {
        const at = verifier.lineOf(committed.digest);
        if (at !== undefined) lines.add(at);
      },
      rev,
    );
  }
  return lines;
}

/**
 * The ledger's path as HEAD's settings have it (the default one when HEAD has no config.jsonc); undefined
 * when HEAD's settings cannot be read (then the ledger is held at its path now).
 */
function committedLedgerPath(root: string): string | undefined {
  const config = committedFile(root, CONFIG_FILE);
  if (typeof config === "string") return undefined;
  if (config === undefined) return defaultSettings.ledgerPath;
  return parseConfig(config.toString("utf8")).values.ledgerPath ?? defaultSettings.ledgerPath;
}

/**
 * The segments HEAD's sealed manifest names that this one no longer does: sealed records are committed
 * records too, and a manifest cut short is a valid one.
 */
function segmentsGoneSinceCommit(root: string, ledgerPath: string, present: ReadonlySet<string>, at: Anchor = HEAD_ANCHOR): VerifyProblem[] {
  const manifest = sealedManifestPath(ledgerPath);
  const path = `${at.shown}:${manifest}`;
  const committed = committedFile(root, manifest, at.rev);
  if (typeof committed === "string")
    return [
      {
        path,
        line: 1,
        kind: "unreadable",
        message: `the sealed manifest as committed at ${at.label} cannot be read (${committed}), so segments removed since ${at.since} cannot be told; fetch the commit's objects (\`git fetch\`) and verify again`,
      },
    ];
  return [...segmentFilesGoneSinceCommit(root, ledgerPath, present, at), ...manifestEntriesGone(root, ledgerPath, present, at)];
}

/** The segment files HEAD's segments folder holds (the folder store) that are gone from it. */
function segmentFilesGoneSinceCommit(root: string, ledgerPath: string, present: ReadonlySet<string>, at: Anchor): VerifyProblem[] {
  const dir = segmentsDir(ledgerPath);
  const committed = committedFolder(root, dir, at.rev);
  if (committed === undefined) return [];
  if (typeof committed === "string")
    return [
      {
        path: `${at.shown}:${dir}`,
        line: 1,
        kind: "unreadable",
        message: `the segments folder as committed at ${at.label} cannot be read (${committed}), so segments removed since ${at.since} cannot be told; fetch the commit's objects (\`git fetch\`) and verify again`,
      },
    ];
  return committed
    .filter((f) => f.endsWith(".seg") && !present.has(f.slice(0, -".seg".length)))
    .map((f) => ({
      path: `${at.shown}:${dir}/${f}`,
      line: 1,
      kind: "removed" as const,
      message: `this segment, committed at ${at.label}, is gone from ${dir}: its records are gone from the history since ${at.since}. \`git checkout ${at.rev} -- ${dir}/${f}\` puts it back; verify again then`,
    }));
}

/** The segments HEAD's sealed manifest names that it names no more. */
function manifestEntriesGone(root: string, ledgerPath: string, present: ReadonlySet<string>, at: Anchor): VerifyProblem[] {
  const manifest = sealedManifestPath(ledgerPath);
  const path = `${at.shown}:${manifest}`;
  const committed = committedFile(root, manifest, at.rev);
  if (committed === undefined || typeof committed === "string") return [];
  return parseManifest(committed.toString("utf8"))
    .entries.filter((e) => !present.has(e.name))
    .map((e) => ({
      path,
      line: e.line,
      kind: "removed" as const,
      message: `segment ${e.name} (${e.lines} sealed line${e.lines === 1 ? "" : "s"}), named at ${at.label}, is named by the sealed manifest no more: its records are gone from the history since ${at.since}. \`git show ${at.rev}:${manifest}\` still names it: put its line back in ${manifest} and verify again`,
    }));
}

/** Whether a line is a record of some dialect (not a torn line, nor text of another tool). */
function isRecordLine(bytes: Buffer): boolean {
  try {
    return detectDialect(JSON.parse(bytes.toString("utf8"))) !== undefined;
  } catch {
    return false;
  }
}

/**
 * A segment whose bytes hash to another name than the one it is read under: for a folder file, changed
 * after it was sealed; for a manifest line, a blob of other bytes (another segment's, or a forged one).
 */
function notItsName(s: SegmentFile): VerifyProblem {
  if (!s.entry)
    return {
      path: s.rel,
      line: 1,
      kind: "segment",
      message: `its bytes do not hash to its name: the segment was changed after it was sealed; ${remedyFor(s)} and verify again`,
    };
  return {
    path: s.file,
    line: s.line,
    kind: "segment",
    message: `${s.rel}: the blob ${s.entry.blob} this line names holds segment ${segmentName(s.bytes)}, not ${s.name}: restore ${s.file} from git, or fetch the segment again with \`intent ledger fetch\`, and verify again`,
  };
}
