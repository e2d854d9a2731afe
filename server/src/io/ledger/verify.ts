/**
 * `intent verify` (docs/LEDGER.md): reads the ledger as bytes and reports, per line, what a reviewer must look
 * at — lines that cannot be read, torn lines, v0.1.0 records that fail the schema, and breaks in the `prev`
 * chain, which mean a record was edited, removed or forged. Records of older dialects are listed as
 * "legacy" (information, not failure).
 *
 * Chain rule: a `prev` must equal the hash of some other non-blank line (`chainHash`: its bytes less a
 * final "\r", so a CRLF checkout is the same chain), normally an earlier one (a rebase that reorders commits,
 * or a cherry-pick, may put a record before the one it follows). Normally that is the
 * directly previous line; after a `merge=union` of two branches two records may share a `prev` or point
 * further back, which is allowed. Lines of other tools and torn lines are chain members like any other.
 * Limit: an edit of the very last line cannot be detected, as no later record vouches for it; a record removed
 * after it was committed is told against HEAD (verifySegments.ts, committedLedger.ts).
 */
import { createHash } from "node:crypto";
import { AGENT_TRACE_VERSION, METADATA_KEY } from "@shared/agentTrace";
import { chainBytes, HASH_PREFIX } from "../../engine/hashing";
import { detectDialect, oversizedClaims, type Dialect } from "../../engine/ledger/read";
import { validateRecord } from "./schema";
import { isBlankBytes } from "../../engine/ledger/blankLine";
import { forEachLine, lineChunks } from "./lineChunks";
import { openRegular } from "../regularFiles";

export type ProblemKind = "unreadable" | "torn" | "not-a-record" | "schema" | "chain" | "legacy" | "segment" | "removed" | "inserted";

export interface VerifyProblem {
  /** The sealed segment the line is in (workspace-relative); absent for the live ledger. */
  path?: string;
  /** 1-based line (of the segment, when `path` names one). */
  line: number;
  kind: ProblemKind;
  message: string;
}

export interface VerifyReport {
  /** No problems other than "legacy". */
  ok: boolean;
  /** Lines that are records of any dialect. */
  records: number;
  problems: VerifyProblem[];
}

const NEWLINE = 0x0a;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Verifies a whole ledger; pass the file's bytes when you have them (hashes are over bytes). */
export function verifyLedger(content: string | Uint8Array): VerifyReport {
  // (a copy of a byte array: a ledger verified whole is a small one)
  const bytes = Buffer.from(content);
  const verifier = new LedgerVerifier();
  let start = 0;
  let lineNumber = 1;
  // Stryker disable next-line EqualityOperator: equivalent: one more pass adds an empty line, which is blank
  while (start < bytes.length) {
    const nl = bytes.indexOf(NEWLINE, start);
    const end = nl === -1 ? bytes.length : nl;
    verifier.addLine(bytes.subarray(start, end), lineNumber, nl !== -1);
    start = end + 1;
    lineNumber++;
  }
  return verifier.report();
}

/**
 * Verifies a ledger file read in chunks: memory stays flat and the event loop is free between reads, so the
 * editor keeps answering while a large ledger is checked. Undefined when the file does not exist.
 */
export async function verifyLedgerFile(
  file: string,
  // Stryker disable next-line ArithmeticOperator: the size of each read changes how often it reads, not what it finds
  chunkBytes = 4 * 1024 * 1024,
  verifier = new LedgerVerifier(),
  firstLine = 1,
): Promise<VerifyReport | undefined> {
  const handle = await openRegular(file).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return undefined;
    throw e;
  });
  if (!handle) return undefined;
  let lineNumber = firstLine;
  try {
    const size = (await handle.stat()).size;
    const chunks = lineChunks(handle, 0, size, chunkBytes);
    for (;;) {
      const next = await chunks.next();
      if (next.done) {
        // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent: an empty last piece is a blank line
        if (next.value.length > 0) verifier.addLine(next.value, lineNumber, false);
        break;
      }
      forEachLine(next.value.bytes, (line) => verifier.addLine(line, lineNumber++, true));
    }
    // Stryker disable BlockStatement: a descriptor left open is not seen in what verify reports
  } finally {
    await handle.close();
  }
  // Stryker restore BlockStatement
  return verifier.report();
}

/** Line-by-line verifier, for callers that stream a large ledger instead of holding it whole. */
export class LedgerVerifier {
  private readonly problems: VerifyProblem[] = [];
  /**
   * Digests (binary, as latin1 strings: half the memory of hex) of every earlier non-blank line, each with
   * the first line that has it, in the order the lines came.
   */
  private readonly seen = new Map<string, number>();
  private records = 0;
  private previousLine = 0;
  /**
   * Prevs that name no earlier line, told at `report` unless a later line has that hash: a record a rebase
   * or cherry-pick put before the line it follows has moved, not been edited.
   */
  private unmatched: { named: string; line: number; previousLine: number }[] = [];
  /** Lines (first of each distinct one) that are no record: foreign text, torn lines, conflict markers. */
  private readonly notRecords = new Set<number>();
  /**
   * The line before's chain bytes (a copy: the reader reads into its buffer again), for a record whose writer
   * hashed that line's carriage return (`checkPrev`): hashed only when a prev names no line.
   */
  private previousBytes: Buffer | undefined;

  /** `where` names a line in messages (a verifier fed segments and the live file numbers lines across them). */
  constructor(private readonly where: (line: number) => string = (line) => `line ${line}`) {}

  /** `terminated` is false only for a last line without newline. */
  addLine(bytes: Uint8Array, lineNumber: number, terminated: boolean): void {
    if (isBlankBytes(bytes)) return;
    // the chain's digest: a CRLF checkout's line is the same line
    const body = chainBytes(bytes);
    const digest = createHash("sha256").update(body).digest().toString("latin1");
    // a line identical to an earlier one is the same record again (a sealed line still in the live file, a
    // merge that brought one back): checked and counted once
    if (!this.seen.has(digest)) {
      this.checkLine(bytes, lineNumber, terminated);
      this.seen.set(digest, lineNumber);
    }
    this.previousLine = lineNumber;
    this.previousBytes = Buffer.from(body);
  }

  /**
   * The first line whose chain digest (the SHA-256 of its `chainBytes`, binary, as latin1) is this; undefined
   * when no line added has it (blank lines never are).
   */
  lineOf(digest: string): number | undefined {
    return this.seen.get(digest);
  }

  /** The first line of each distinct non-blank line added, in the order they came. */
  lines(): IterableIterator<number> {
    return this.seen.values();
  }

  /** Whether the line numbered so (the first of its text) is a record of some dialect. */
  isRecord(line: number): boolean {
    return !this.notRecords.has(line);
  }

  report(): VerifyReport {
    for (const u of this.unmatched.splice(0)) if (!this.seen.has(u.named)) this.tellUnmatched(u.line, u.previousLine);
    const problems = [...this.problems].sort((a, b) => a.line - b.line);
    return { ok: problems.every((p) => p.kind === "legacy"), records: this.records, problems };
  }

  private checkLine(bytes: Uint8Array, lineNumber: number, terminated: boolean): void {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
    let obj: unknown;
    try {
      obj = JSON.parse(text);
    } catch (e) {
      this.notRecords.add(lineNumber);
      this.reportUnparsable(text, lineNumber, terminated, (e as Error).message);
      return;
    }
    const dialect = detectDialect(obj);
    if (!dialect) {
      this.notRecords.add(lineNumber);
      this.add(lineNumber, "not-a-record", "JSON but not an Agent Trace record (no `files` array, nor `file_path` of a flat record)");
      return;
    }
    this.records++;
    const record = obj as Record<string, unknown>;
    if (dialect === "spec" && record["version"] === AGENT_TRACE_VERSION) {
      const errors = validateRecord(record);
      if (errors.length > 0)
        this.add(
          lineNumber,
          "schema",
          `record ${String(record["id"])} claims Agent Trace ${AGENT_TRACE_VERSION} but does not match its schema: ${errors.join("; ")}`,
        );
    } else {
      this.add(lineNumber, "legacy", legacyMessage(dialect, record["version"]));
    }
    // a record that claims more lines than a record may is skipped by every reader: the reviewer must know
    // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent: a flat record holds no line map nor ranges to claim lines with
    if (dialect !== "flat") for (const message of oversizedClaims(record)) this.add(lineNumber, "unreadable", message);
    this.checkPrev(record, lineNumber);
  }

  private reportUnparsable(text: string, lineNumber: number, terminated: boolean, why: string): void {
    const trimmed = text.trim();
    // A record cut off mid-write starts like one and never closes; anything else is foreign text.
    if (trimmed.startsWith("{") && !trimmed.endsWith("}")) {
      const where = terminated ? "a later append continued on a fresh line" : "no newline ends the file";
      this.add(
        lineNumber,
        "torn",
        `incomplete record (${where}): a write was interrupted, e.g. a crash mid-append; the bytes stay for inspection, the record they held is lost`,
      );
      return;
    }
    this.add(lineNumber, "unreadable", `not valid JSON (${why}); readers skip this line — fix or remove it by hand`);
  }

  private checkPrev(record: Record<string, unknown>, lineNumber: number): void {
    const metadata = record["metadata"];
    // Stryker disable next-line ConditionalExpression: equivalent: a string or number holds no metadata key either
    if (typeof metadata !== "object" || metadata === null) return;
    const ours = (metadata as Record<string, unknown>)[METADATA_KEY];
    if (typeof ours !== "object" || ours === null || !("prev" in ours)) return;
    const prev = (ours as Record<string, unknown>)["prev"];
    if (prev === null) return; // the writer found the ledger empty (or this is the first record of a merged branch)
    // Stryker disable next-line StringLiteral: equivalent: any text that is no 64 hex digits is told the same
    const hex = typeof prev === "string" && prev.startsWith(HASH_PREFIX) ? prev.slice(HASH_PREFIX.length) : "";
    if (!SHA256_HEX.test(hex)) {
      this.add(
        lineNumber,
        "chain",
        `prev ${JSON.stringify(prev)} is not a "sha256:<64 hex>" hash; the record was not written by intent-lsp's appender or was edited`,
      );
      return;
    }
    const named = Buffer.from(hex, "hex").toString("latin1");
    if (this.seen.has(named) || this.hashedWithCr(named)) return;
    this.unmatched.push({ named, line: lineNumber, previousLine: this.previousLine });
  }

  /** Whether `named` is the hash of the line before with a "\r" after it, as a writer in a CRLF checkout took it. */
  private hashedWithCr(named: string): boolean {
    return this.previousBytes !== undefined && createHash("sha256").update(this.previousBytes).update("\r").digest().toString("latin1") === named;
  }

  /** A prev at `line` that names no line of the ledger. */
  private tellUnmatched(line: number, previousLine: number): void {
    if (previousLine > 0) {
      this.add(
        previousLine,
        "chain",
        `does not match the hash ${this.where(line)} recorded for the line before it (prev): this line was edited after ${this.where(line)} was written, or a line between them was removed`,
      );
    } else {
      this.add(line, "chain", "prev names a line that is not in the ledger: the records before this one were removed");
    }
  }

  private add(line: number, kind: ProblemKind, message: string): void {
    this.problems.push({ line, kind, message });
  }
}

function legacyMessage(dialect: Dialect, version: unknown): string {
  switch (dialect) {
    case "older":
      return "legacy dialect (relative_path / entity_type records); read, not schema-checked — `intent migrate` converts it";
    case "flat":
      return "legacy dialect (flat record: intent_id / file_path / content_hash); read, not schema-checked — `intent migrate` converts it";
    case "reference":
      return `legacy dialect (reference implementation, version ${JSON.stringify(version)}); read, not schema-checked`;
    case "spec":
      return `Agent Trace version ${JSON.stringify(version)}: read, but only ${AGENT_TRACE_VERSION} is schema-checked`;
  }
}
