import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Diagnostic, PublishDiagnosticsParams, Range, TextDocumentContentChangeEvent } from "vscode-languageserver-protocol";
import { allCommands } from "../../shared/src/commands";
import type { ServerUnderTest } from "./inProcessServer";

/**
 * Seeded protocol fuzz: random sequences of what editors send (opens, incremental and full changes with
 * reversed, past-the-end and mid-surrogate ranges, multi-byte and huge text, every kind of line break,
 * saves, closes, hovers, code actions, lenses, hints, commands with wrong argument types, all out of
 * order), checked against six oracles:
 *  1. the server keeps running;
 *  2. it answers every request, with a result or an LSP error, before `ANSWER_MS`;
 *  3. every range it publishes (diagnostics for the version they name, or for a closed file its text on
 *     disk then or before the sequence's latest writes; lenses and hints at the time asked) lies inside
 *     the document;
 *  4. its text of every open document equals a reference model fed the same changes, read back through
 *     `intent.blame`'s text rows. The model is written here from the LSP specification, independently of
 *     the server's text library: a position past the end of a line is its end, past the last line the end
 *     of the text; a range whose start is after its end is taken the other way round. (Written here rather
 *     than borrowed: vscode-languageserver-textdocument 1.0.12 corrupts its line table when a range lies
 *     wholly past the last line, which the fuzz found first.)
 *  5. once every save sent has been handled, each open document whose text is the file on disk shows the
 *     owners `intent blame` gives that file, line for line (`compareOwners`);
 *  6. the last publication for every open document carries its current version, a reopened document
 *     numbered from 1 again included: once the current version is published and nothing has been sent for
 *     the document since, every publication for it carries that version (checked as each arrives), and the
 *     last one does once the server has caught up (`lastPublicationsCurrent`).
 */

/** The reference text model: a string and where its lines start (CRLF, LF and a lone CR end a line). */
export class TextModel {
  private starts: number[];
  constructor(
    readonly uri: string,
    readonly version: number,
    private readonly content: string,
  ) {
    this.starts = [0];
    for (let i = 0; i < content.length; i++) {
      const c = content.charCodeAt(i);
      if (c === 0x0d && content.charCodeAt(i + 1) === 0x0a) i++;
      if (c === 0x0a || c === 0x0d) this.starts.push(i + 1);
    }
  }
  getText(): string {
    return this.content;
  }
  get lineCount(): number {
    return this.starts.length;
  }
  /** Where a line's text ends: before its line break (CRLF counts as one); the last line has none. */
  private lineEnd(line: number): number {
    if (line + 1 >= this.starts.length) return this.content.length;
    const next = this.starts[line + 1]!;
    return next - 2 >= this.starts[line]! && this.content[next - 2] === "\r" && this.content[next - 1] === "\n" ? next - 2 : next - 1;
  }
  offsetAt(p: { line: number; character: number }): number {
    if (p.line < 0) return 0;
    if (p.line >= this.starts.length) return this.content.length;
    const start = this.starts[p.line]!;
    return Math.min(start + Math.max(0, p.character), this.lineEnd(p.line));
  }
  positionAt(offset: number): { line: number; character: number } {
    const at = Math.max(0, Math.min(offset, this.content.length));
    let line = 0;
    while (line + 1 < this.starts.length && this.starts[line + 1]! <= at) line++;
    return { line, character: at - this.starts[line]! };
  }
  update(change: TextDocumentContentChangeEvent, version: number): TextModel {
    if (!("range" in change)) return new TextModel(this.uri, version, change.text);
    let a = this.offsetAt(change.range.start);
    let b = this.offsetAt(change.range.end);
    if (a > b) [a, b] = [b, a];
    return new TextModel(this.uri, version, this.content.slice(0, a) + change.text + this.content.slice(b));
  }
}

/**
 * INTENT_LSP_FUZZ_SKIP=reversed,crlf-join leaves out reversed ranges and edits that join or split a CRLF:
 * a way to look past the open-document defects of openDocumentDefects.test.ts while they are open. The
 * default (and `npm test`) sends everything.
 */
const SKIP = new Set((process.env["INTENT_LSP_FUZZ_SKIP"] ?? "").split(",").filter(Boolean));

/** A request not answered in this long counts as never answered (answers take milliseconds). */
export const ANSWER_MS = 15_000;

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface FuzzStats {
  sequences: number;
  notifications: number;
  requests: number;
  errorsAnswered: number;
  publishes: number;
  rangesChecked: number;
  viewsCompared: number;
  /** Open documents whose buffer was the file on disk, their owners compared with `intent blame`'s. */
  ownersCompared: number;
}

export interface Violation {
  oracle: "exited" | "unanswered" | "unpublished" | "stale-publication" | "range-outside" | "view-differs" | "owners-differ" | "internal-error";
  detail: string;
  /** The sequence's seed: rerun it alone to reproduce. */
  seed: number;
}

interface ModelDoc {
  uri: string;
  doc: TextModel;
  open: boolean;
}

/** The files sequences edit: sources, a new file, the rule files (whose text shapes every diagnostic). */
const FILES = [
  "src/api/weather.ts",
  "src/api/forecast.ts",
  "docs/notes.md",
  "src/auth/middleware.ts",
  "src/billing/export.ts",
  "src/api/new-file.ts",
  "README.md",
  ".orchestration/active_intents.yaml",
  ".orchestration/config.jsonc",
];

const PIECES = [
  "a",
  "foo bar",
  "\n",
  "\r\n",
  "\r",
  "é",
  "日本語",
  "😀",
  "\ud83d",
  "\ude00",
  "\t",
  "",
  "  ",
  "// x\n",
  "- id: INT-9\n",
  "[[[",
  "}",
  "\u0000",
  "\u2028",
  "ﬀ",
  "👩‍👩‍👧",
];

export class ProtocolFuzz {
  readonly stats: FuzzStats = {
    sequences: 0,
    notifications: 0,
    requests: 0,
    errorsAnswered: 0,
    publishes: 0,
    rangesChecked: 0,
    viewsCompared: 0,
    ownersCompared: 0,
  };
  readonly violations: Violation[] = [];
  private readonly docs = new Map<string, ModelDoc>();
  /**
   * Every version's texts of every document, so a publish can be checked against the version it names: a
   * reopened document may start again at version 1 (as several editors do), so one version can name several texts.
   */
  private readonly history = new Map<string, Map<number, string[]>>();
  private readonly nextVersion = new Map<string, number>();
  private seed = 0;
  private rnd: () => number = Math.random;
  server!: ServerUnderTest;

  constructor(readonly root: string) {}

  /** Texts files held on disk before this sequence's writes, and before the previous sequence's (a publish may come late). */
  private diskBefore = new Map<string, string[]>();
  private diskEarlier = new Map<string, string[]>();

  /** The latest version published for each document, and who waits for one. */
  private readonly published = new Map<string, number>();
  /** The version the last publication for each document carried (null: none, a closed file's). */
  private readonly lastPublication = new Map<string, number | null>();
  /**
   * Open documents whose current version has been published with nothing sent for them since: the server
   * has no newer text, so any later publication for them must carry that version too.
   */
  private readonly currentPublished = new Set<string>();
  /**
   * Closes sent whose withdrawal (the empty publication without a version the server sends for a close) has
   * not arrived: until it has, a publication of a reopened document's version may be the earlier opening's,
   * which numbered its versions the same.
   */
  private readonly withdrawalsDue = new Map<string, number>();
  private publishWaiters: (() => void)[] = [];

  /** Oracle 3 for diagnostics: called for every publish, whenever it arrives. */
  onPublish = (raw: unknown): void => {
    const p = raw as PublishDiagnosticsParams;
    this.stats.publishes++;
    if (typeof p.version === "number") this.published.set(p.uri, p.version);
    this.lastPublication.set(p.uri, typeof p.version === "number" ? p.version : null);
    const open = this.docs.get(p.uri);
    const due = this.withdrawalsDue.get(p.uri) ?? 0;
    if (due > 0 && typeof p.version !== "number") this.withdrawalsDue.set(p.uri, due - 1);
    else if (open?.open && this.currentPublished.has(p.uri) && p.version !== open.doc.version)
      this.violate("stale-publication", `${p.uri} was published for version ${p.version ?? "none"} after its current version ${open.doc.version} was`);
    if (open?.open && p.version === open.doc.version && !this.withdrawalsDue.get(p.uri)) this.currentPublished.add(p.uri);
    this.wakePublishWaiters();
    let text: string | undefined;
    if (typeof p.version === "number") {
      const texts = this.history.get(p.uri)?.get(p.version) ?? [];
      const ranges = (p.diagnostics as Diagnostic[]).map((d) => d.range);
      // the newest text of that version, unless only an earlier text of the same number holds the ranges
      text = [...texts].reverse().find((t) => fits(t, ranges)) ?? texts[texts.length - 1];
    } else if (p.diagnostics.length) {
      // a file the server has as closed is published for its disk text as the server read it; the sequence
      // may have written the file since (a save after a didOpen the server had not handled yet)
      text = this.diskText(p.uri);
      const ranges = (p.diagnostics as Diagnostic[]).map((d) => d.range);
      const earlier = [...(this.diskBefore.get(p.uri) ?? []), ...(this.diskEarlier.get(p.uri) ?? [])];
      if (text !== undefined && !fits(text, ranges) && earlier.some((t) => fits(t, ranges))) return;
    }
    if (text === undefined) {
      if (p.diagnostics.length && typeof p.version === "number")
        this.violate("range-outside", `publish for ${p.uri} names version ${p.version}, which was never sent`);
      return;
    }
    for (const d of p.diagnostics as Diagnostic[]) this.checkRanges(p.uri, text, [d.range], `diagnostic ${d.code} v${p.version ?? "disk"}`);
  };

  private wakePublishWaiters(): void {
    const waiters = this.publishWaiters;
    this.publishWaiters = [];
    for (const w of waiters) w();
  }

  private diskText(uri: string): string | undefined {
    try {
      return readFileSync(new URL(uri), "utf8");
    } catch {
      return undefined;
    }
  }

  private checkRanges(uri: string, text: string, ranges: Range[], what: string): void {
    const lines = text.split(/\r\n|\r|\n/);
    for (const r of ranges) {
      this.stats.rangesChecked++;
      for (const p of [r.start, r.end]) {
        if (p.line < 0 || p.character < 0 || p.line >= lines.length || p.character > lines[p.line]!.length) {
          this.violate(
            "range-outside",
            `${what} of ${uri}: ${JSON.stringify(r)} is outside a document of ${lines.length} lines (line ${p.line} has ${lines[p.line]?.length ?? "no"} characters)`,
          );
          return;
        }
      }
      if (r.start.line > r.end.line || (r.start.line === r.end.line && r.start.character > r.end.character)) {
        this.violate("range-outside", `${what} of ${uri}: ${JSON.stringify(r)} ends before it starts`);
      }
    }
  }

  private violate(oracle: Violation["oracle"], detail: string): void {
    if (this.violations.length < 50) this.violations.push({ oracle, detail, seed: this.seed });
  }

  // --- sending ----------------------------------------------------------------------------------

  /** What the current sequence sent, to print when it breaks an oracle (INTENT_LSP_FUZZ_TRACE=1). */
  readonly trace: string[] = [];

  /** didSave notifications sent for open documents, and `intent/saveProcessed` notifications received. */
  private savesSent = 0;
  private savesProcessed = 0;
  private listening: ServerUnderTest | undefined;

  private async notify(method: string, params: unknown): Promise<void> {
    this.stats.notifications++;
    if (this.listening !== this.server) {
      this.listening = this.server;
      this.server.connection.onNotification("intent/saveProcessed", () => {
        this.savesProcessed++;
        this.wakePublishWaiters();
      });
    }
    // a document event: what was published for the document before it may no longer be its current version
    const eventUri = (params as { textDocument?: { uri?: unknown } } | null)?.textDocument?.uri;
    if (typeof eventUri === "string" && method !== "textDocument/didSave") this.currentPublished.delete(eventUri);
    if (typeof eventUri === "string" && method === "textDocument/didClose") this.withdrawalsDue.set(eventUri, (this.withdrawalsDue.get(eventUri) ?? 0) + 1);
    const savedUri = method === "textDocument/didSave" ? (params as { textDocument?: { uri?: unknown } } | null)?.textDocument?.uri : undefined;
    if (typeof savedUri === "string" && this.docs.get(savedUri)?.open) this.savesSent++;
    if (process.env["INTENT_LSP_FUZZ_TRACE"] === "1")
      this.trace.push(`${method} ${JSON.stringify(params)?.slice(0, Number(process.env["INTENT_LSP_FUZZ_TRACE_CHARS"] ?? 400))}`);
    await this.server.connection.sendNotification(method, params);
  }

  /** Oracle 2: an answer (result or error) within ANSWER_MS. */
  private async request<T>(method: string, params: unknown): Promise<T | undefined> {
    this.stats.requests++;
    if (process.env["INTENT_LSP_FUZZ_TRACE"] === "1")
      this.trace.push(`${method}? ${JSON.stringify(params)?.slice(0, Number(process.env["INTENT_LSP_FUZZ_TRACE_CHARS"] ?? 400))}`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), ANSWER_MS)));
    const answer = this.server.connection.sendRequest(method, params).then(
      (result) => ({ result }),
      (error: { code?: number; message?: string }) => ({ error }),
    );
    const outcome = await Promise.race([answer, timeout]);
    clearTimeout(timer);
    if (outcome === "timeout") {
      this.violate("unanswered", `${method} ${JSON.stringify(params).slice(0, 300)} got no answer in ${ANSWER_MS} ms`);
      return undefined;
    }
    if ("error" in outcome) {
      this.stats.errorsAnswered++;
      const e = outcome.error;
      // an error the handler threw by accident, not one it meant to give (a clear InvalidParams is fine)
      if (e.code === -32603 && /failed with message/.test(e.message ?? ""))
        this.violate("internal-error", `${method} ${JSON.stringify(params).slice(0, 200)}: ${e.message}`);
      return undefined;
    }
    return outcome.result as T;
  }

  // --- random data ------------------------------------------------------------------------------

  private int(n: number): number {
    return Math.floor(this.rnd() * n);
  }
  private pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  private chance(p: number): boolean {
    return this.rnd() < p;
  }

  private text(): string {
    const r = this.rnd();
    if (r < 0.02) return "x".repeat(50_000 + this.int(150_000)); // one huge line
    if (r < 0.04) return `${"line\r\n".repeat(200 + this.int(2000))}end`; // many lines
    if (r < 0.05) return "[".repeat(10_000); // nesting, typed
    let s = "";
    const n = this.int(6);
    for (let i = 0; i < n; i++) s += this.pick(PIECES);
    return s;
  }

  private position(doc: TextModel): { line: number; character: number } {
    const r = this.rnd();
    if (r < 0.05) return { line: doc.lineCount + this.int(5), character: this.int(10) }; // past the end
    if (r < 0.07) return { line: this.int(doc.lineCount), character: 10_000 }; // past the line's end
    const line = this.int(doc.lineCount);
    const start = doc.offsetAt({ line, character: 0 });
    const end = line + 1 < doc.lineCount ? doc.offsetAt({ line: line + 1, character: 0 }) : doc.getText().length;
    const offset = start + this.int(end - start + 1);
    return doc.positionAt(offset); // may fall inside a surrogate pair or a CRLF: positions are UTF-16 units
  }

  private range(doc: TextModel): Range {
    const a = this.position(doc);
    const b = this.chance(0.3) ? a : this.position(doc);
    if (!SKIP.has("reversed") && this.chance(0.1)) return { start: b, end: a }; // reversed as often as not
    const before = doc.offsetAt(a) <= doc.offsetAt(b);
    return before ? { start: a, end: b } : { start: b, end: a };
  }

  // --- the model --------------------------------------------------------------------------------

  private uri(rel: string): string {
    return pathToFileURL(join(this.root, rel)).href;
  }

  private version(uri: string): number {
    const v = (this.nextVersion.get(uri) ?? 0) + 1;
    this.nextVersion.set(uri, v);
    return v;
  }

  private remember(uri: string, doc: TextModel): void {
    let h = this.history.get(uri);
    if (!h) this.history.set(uri, (h = new Map()));
    h.set(doc.version, [...(h.get(doc.version) ?? []), doc.getText()]);
  }

  // --- operations -------------------------------------------------------------------------------

  private async open(rel: string): Promise<void> {
    const uri = this.uri(rel);
    const text = this.chance(0.85) ? (this.diskText(uri) ?? this.text()) : this.text();
    // a reopened document starts again at version 1 half the time, as several editors number it
    if (!this.docs.get(uri)?.open && this.chance(0.5)) this.nextVersion.set(uri, 0);
    const version = this.version(uri);
    const doc = new TextModel(uri, version, text);
    this.docs.set(uri, { uri, doc, open: true });
    this.remember(uri, doc);
    await this.notify("textDocument/didOpen", { textDocument: { uri, languageId: "plaintext", version, text } });
  }

  private async change(m: ModelDoc | undefined, uri: string): Promise<void> {
    const version = this.version(uri);
    const changes: TextDocumentContentChangeEvent[] = [];
    const count = 1 + (this.chance(0.2) ? this.int(4) : 0);
    let doc = m?.doc ?? new TextModel(uri, 0, "");
    for (let i = 0; i < count; i++) {
      let change: TextDocumentContentChangeEvent = this.chance(0.05)
        ? { text: this.text() }
        : { range: this.range(doc), text: doc.getText().length > 1_000_000 ? "" : this.text() };
      if (SKIP.has("crlf-join") && "range" in change && joinsCrLf(doc, change.range, change.text)) change = { range: change.range, text: "x" };
      changes.push(change);
      doc = doc.update(change, version); // each change applies to the result of the one before
    }
    if (m?.open) {
      m.doc = doc;
      this.remember(uri, doc);
    }
    await this.notify("textDocument/didChange", { textDocument: { uri, version }, contentChanges: changes });
  }

  private async save(m: ModelDoc): Promise<void> {
    // as an editor does: the file is written, then the server is told
    if (this.chance(0.9)) {
      const before = this.diskText(m.uri);
      if (before !== undefined) this.diskBefore.set(m.uri, [...(this.diskBefore.get(m.uri) ?? []), before]);
      writeFileSync(new URL(m.uri), m.doc.getText());
    }
    await this.notify("textDocument/didSave", { textDocument: { uri: m.uri } });
  }

  private async close(uri: string): Promise<void> {
    const m = this.docs.get(uri);
    if (m) m.open = false;
    this.docs.delete(uri);
    await this.notify("textDocument/didClose", { textDocument: { uri } });
  }

  private async ask(uri: string, m: ModelDoc | undefined): Promise<void> {
    const doc = m?.doc ?? new TextModel(uri, 0, "x");
    const textAtAsk = doc.getText();
    switch (this.int(6)) {
      case 0:
        await this.request("textDocument/hover", { textDocument: { uri }, position: this.position(doc) });
        break;
      case 1: {
        const lenses = await this.request<{ range: Range }[]>("textDocument/codeLens", { textDocument: { uri } });
        if (m && lenses)
          this.checkRanges(
            uri,
            textAtAsk,
            lenses.map((l) => l.range),
            "codeLens",
          );
        break;
      }
      case 2: {
        const hints = await this.request<{ position: Range["start"] }[]>("textDocument/inlayHint", { textDocument: { uri }, range: this.range(doc) });
        if (m && hints)
          this.checkRanges(
            uri,
            textAtAsk,
            hints.map((h) => ({ start: h.position, end: h.position })),
            "inlayHint",
          );
        break;
      }
      case 3: {
        const diagnostics = this.chance(0.5)
          ? []
          : [
              {
                range: this.range(doc),
                message: "x",
                code: this.pick(["out-of-scope", "no-active-intent", "intent-not-in-progress", 42, undefined]),
                data: this.pick([{ path: "docs/notes.md" }, { path: 5 }, null, undefined]),
              },
            ];
        await this.request("textDocument/codeAction", { textDocument: { uri }, range: this.range(doc), context: { diagnostics } });
        break;
      }
      case 4:
        await this.command(uri, doc);
        break;
      default:
        await this.request(
          this.pick(["textDocument/definition", "intent/unknown", "textDocument/willSaveWaitUntil"]),
          this.pick([{ textDocument: { uri }, position: { line: 0, character: 0 } }, null, 42, { textDocument: { uri }, reason: 1 }]),
        );
    }
  }

  private async command(uri: string, doc: TextModel): Promise<void> {
    const command = this.chance(0.9) ? this.pick(allCommands) : this.pick(["intent.nothing", "", 42]);
    const args = this.pick<unknown[] | undefined>([
      undefined,
      [],
      [null],
      [42],
      ["INT-001"],
      ["INT-001", "COMPLETE"],
      ["INT-003", "IN_PROGRESS"],
      [{}],
      [{ id: 5 }],
      [{ id: "INT-001", to: 7 }],
      [{ id: "INT-001", glob: 5 }],
      [{ id: "INT-004", glob: "docs/guide/**" }],
      [{ id: "INT-001", glob: `${"*a".repeat(10)}b` }],
      [{ uri: 5 }],
      [{ uri, startLine: "x", endLine: -4 }],
      [{ uri, startLine: doc.lineCount + 3 }],
      [{ path: "src/api/weather.ts\u0000" }],
      [{ path: "../../etc/passwd" }],
      [{ path: "docs/new\nline.md" }],
      [{ path: "/etc/hosts" }],
      [{ id: "INT-001", budget: -1 }],
      [{ id: "INT-001", budget: 1e308 }],
      [{ id: "INT-001", budget: "x" }],
      [[[[[]]]]],
      ["x".repeat(100_000)],
    ]);
    await this.request("workspace/executeCommand", { command, ...(args === undefined ? {} : { arguments: args }) });
  }

  /** Oracle 4: the server's text of each open document, read back through intent.blame, equals the model's. */
  private async compareViews(): Promise<void> {
    for (const m of this.docs.values()) {
      if (!m.open) continue;
      const blame = await this.request<{ lines: { text: string }[] }>("workspace/executeCommand", { command: "intent.blame", arguments: [{ uri: m.uri }] });
      if (!blame) continue; // a document outside the workspace folder has no blame
      this.stats.viewsCompared++;
      const expected = textLines(m.doc.getText());
      const got = blame.lines.map((l) => l.text);
      if (got.length !== expected.length || got.some((t, i) => t !== expected[i])) {
        const at = got.findIndex((t, i) => t !== expected[i]);
        this.violate(
          "view-differs",
          `${m.uri} v${m.doc.version}: the server has ${got.length} lines, the model ${expected.length}; first difference at line ${at}: ${JSON.stringify(got[at])?.slice(0, 80)} vs ${JSON.stringify(expected[at])?.slice(0, 80)}`,
        );
      }
    }
  }

  /**
   * Oracle 5: once every save sent has been handled, each open document whose text is the file on disk shows
   * the owners `intent blame` gives that file: the document's rows (hover's source) and a few hovers equal
   * the rows of the file read from disk against the ledger (the path form of intent.blame, the CLI's rule).
   */
  private async compareOwners(): Promise<void> {
    const deadline = Date.now() + ANSWER_MS;
    while (this.savesProcessed < this.savesSent) {
      if (Date.now() > deadline) {
        this.violate("unanswered", `${this.savesSent - this.savesProcessed} of ${this.savesSent} saves were never announced as handled (intent/saveProcessed)`);
        return;
      }
      await new Promise<void>((r) => {
        const t = setTimeout(r, 100);
        this.publishWaiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
    for (const m of this.docs.values()) {
      if (!m.open || m.doc.getText() !== this.diskText(m.uri)) continue;
      const path = relative(this.root, fileURLToPath(m.uri));
      type Rows = { lines: { kind: string; traceId?: string }[] };
      // "indexing" is the server saying it does not know yet (a ledger read under way), never a wrong owner:
      // it is asked again until the read is done, and only an answer that stays "indexing" is a violation
      let shown = await this.request<Rows>("workspace/executeCommand", { command: "intent.blame", arguments: [{ uri: m.uri }] });
      const settled = Date.now() + ANSWER_MS;
      while (shown?.lines.some((l) => l.kind === "indexing") && Date.now() < settled) {
        await new Promise<void>((r) => setTimeout(r, 100));
        shown = await this.request<Rows>("workspace/executeCommand", { command: "intent.blame", arguments: [{ uri: m.uri }] });
      }
      const blamed = await this.request<Rows>("workspace/executeCommand", { command: "intent.blame", arguments: [{ path }] });
      if (!shown || !blamed) continue; // outside the workspace folder
      this.stats.ownersCompared++;
      const owner = (l: { kind: string; traceId?: string } | undefined) => (l ? `${l.kind}${l.traceId ? ` ${l.traceId}` : ""}` : "(no row)");
      const at = shown.lines.findIndex((l, i) => owner(l) !== owner(blamed.lines[i]));
      if (at !== -1 || shown.lines.length !== blamed.lines.length) {
        const i = at === -1 ? Math.min(shown.lines.length, blamed.lines.length) : at;
        this.violate(
          "owners-differ",
          `${path} v${m.doc.version} (buffer = disk): line ${i + 1} shows ${owner(shown.lines[i])}, intent blame says ${owner(blamed.lines[i])}`,
        );
        continue;
      }
      if (path.startsWith(".orchestration/")) continue; // a rule file's hover is about its intents
      for (let k = 0; k < 3 && blamed.lines.length; k++) {
        const line = this.int(blamed.lines.length);
        const h = await this.request<{ contents: { value: string } } | null>("textDocument/hover", {
          textDocument: { uri: m.uri },
          position: { line, character: 0 },
        });
        const trace = h ? /trace `([^`]+)`/.exec(h.contents.value)?.[1] : undefined;
        if (trace !== blamed.lines[line]!.traceId)
          this.violate(
            "owners-differ",
            `${path} v${m.doc.version} (buffer = disk): hover on line ${line + 1} names trace ${trace ?? "none"}, intent blame ${blamed.lines[line]!.traceId ?? "none"}`,
          );
      }
    }
  }

  /** Waits for the diagnostics of every open document's current version: the fact that the server caught up. */
  private async awaitPublishes(): Promise<void> {
    const deadline = Date.now() + ANSWER_MS;
    for (const m of this.docs.values()) {
      while (m.open && this.published.get(m.uri) !== m.doc.version) {
        if (Date.now() > deadline) {
          this.violate(
            "unpublished",
            `no diagnostics were published for ${m.uri} v${m.doc.version} (last: v${this.published.get(m.uri)}); server log: ${this.server.stderr().slice(-1500)}`,
          );
          return;
        }
        await new Promise<void>((r) => {
          const t = setTimeout(r, 100);
          this.publishWaiters.push(() => {
            clearTimeout(t);
            r();
          });
        });
      }
    }
  }

  /**
   * The invariant of publication: once the server has caught up, the last publication for every open
   * document carries its current version (never one computed for text the document no longer has, such as
   * the version before a close and a reopen that numbered it again). Checked after the comparisons, whose
   * requests give a late publication time to arrive.
   */
  private async lastPublicationsCurrent(): Promise<void> {
    const deadline = Date.now() + ANSWER_MS;
    for (const m of this.docs.values()) {
      while (m.open && this.lastPublication.get(m.uri) !== m.doc.version) {
        if (Date.now() > deadline) {
          this.violate(
            "stale-publication",
            `the last publication for ${m.uri} carries version ${this.lastPublication.get(m.uri) ?? "none"}; the document is at version ${m.doc.version}`,
          );
          return;
        }
        await new Promise<void>((r) => {
          const t = setTimeout(r, 100);
          this.publishWaiters.push(() => {
            clearTimeout(t);
            r();
          });
        });
      }
    }
  }

  /** One sequence: a few documents, 5 to 25 operations on them in random order, a comparison, closes. */
  async sequence(seed: number): Promise<void> {
    this.seed = seed;
    this.rnd = prng(seed);
    this.trace.length = 0;
    this.diskEarlier = this.diskBefore;
    this.diskBefore = new Map();
    const files = [this.pick(FILES), this.pick(FILES), ...(this.chance(0.3) ? [this.pick(FILES)] : [])];
    if (this.chance(0.8)) await this.open(files[0]!);
    const steps = 5 + this.int(21);
    for (let i = 0; i < steps; i++) {
      const rel = this.pick(files);
      const uri = this.uri(rel);
      const m = this.docs.get(uri);
      const r = this.rnd();
      if (r < 0.45)
        await this.change(m, uri); // also before open and after close
      else if (r < 0.75) await this.ask(uri, m);
      else if (r < 0.83) await (m ? this.save(m) : this.open(rel));
      else if (r < 0.88) await this.close(uri);
      else if (r < 0.95) await this.open(rel);
      else {
        const method = this.pick([
          "textDocument/didSave",
          "textDocument/didClose",
          "textDocument/didChange",
          "workspace/didChangeWatchedFiles",
          "intent/unknown",
        ]);
        const params = this.pick([null, {}, { textDocument: { uri } }, { changes: [{ uri, type: 2 }] }, { changes: 5 }]);
        if (method === "textDocument/didClose" && params && "textDocument" in params) this.docs.delete(uri); // a well-formed close after all
        await this.notify(method, params);
      }
      if (!this.server.alive()) {
        this.violate("exited", `the server exited: ${this.server.stderr().slice(-2000)}`);
        return;
      }
    }
    if (seed % 4 === 0) await this.awaitPublishes();
    await this.compareViews();
    await this.compareOwners();
    if (seed % 4 === 0) await this.lastPublicationsCurrent();
    for (const uri of [...this.docs.keys()]) await this.close(uri);
    // once this answer is in, every notification before it has been handled and every publish of these versions has arrived
    await this.request("textDocument/hover", { textDocument: { uri: this.uri(FILES[0]!) }, position: { line: 0, character: 0 } });
    this.history.clear();
    this.stats.sequences++;
  }
}

/** Whether every range lies inside `text` (the check of oracle 3, without reporting). */
function fits(text: string, ranges: Range[]): boolean {
  const lines = text.split(/\r\n|\r|\n/);
  return ranges.every((r) => [r.start, r.end].every((p) => p.line >= 0 && p.character >= 0 && p.line < lines.length && p.character <= lines[p.line]!.length));
}

/** Whether replacing `range` with `text` puts a CR right before an LF that were apart (or splits a CRLF). */
function joinsCrLf(doc: TextModel, range: Range, text: string): boolean {
  let a = doc.offsetAt(range.start);
  let b = doc.offsetAt(range.end);
  if (a > b) [a, b] = [b, a];
  const s = doc.getText();
  const before = s[a - 1];
  const after = s[b];
  const first = text === "" ? after : text[0];
  const last = text === "" ? before : text[text.length - 1];
  return (
    (before === "\r" && first === "\n") || (last === "\r" && after === "\n") || (s[a - 1] === "\r" && s[a] === "\n") || (s[b - 1] === "\r" && s[b] === "\n")
  );
}

/** The line model of intent.blame: a final line break ends the last line, it does not start another. */
function textLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}
