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

export interface WorkspaceVerifyReport extends VerifyReport {
  /** Segments read (intact or not). */
  segments: number;
}

/** Verifies the sealed segments and the live ledger; undefined when there is neither. */
export async function verifyWorkspaceLedger(root: string, ledgerPath: string): Promise<WorkspaceVerifyReport | undefined> {
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
  for (const segment of orderSegments(segments)) {
    // each segment numbered from its own first line, duplicates across segments counted once
    starts.push({ first: next, path: segment.rel });
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
  if (!live && !segments.length && !problems.length) return undefined;
  const report = verifier.report();
  const all = [
    ...problems,
    ...report.problems.map((p) => {
      const at = locate(p.line);
      return at.path ? { ...p, path: at.path, line: at.line } : { ...p, line: at.line };
    }),
  ];
  return { ok: all.every((p) => p.kind === "legacy"), records: report.records, problems: all, segments: segments.length };
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
