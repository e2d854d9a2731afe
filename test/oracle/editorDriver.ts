import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { diffArrays } from "diff";
import type { Hover, TextDocumentContentChangeEvent } from "vscode-languageserver-protocol";
import { LspClient, SERVER_JS } from "../support/lspClient";
import { parseHover, type Seen } from "./answers";
import type { Typing } from "./generator";
import { expectedSaveRecords } from "./saveFallback";

/**
 * The editor: one LSP client talking to the built server over JSON-RPC, keeping each open document's text
 * the way an editor does and sending exactly the notifications an editor sends: didOpen, didChange (one
 * change per edit, or several in one notification, bottom-up), didSave after writing the file, didClose.
 */

export type RawLine = { text: string; eol: string };
/** Lines [at, at+remove) replaced by `insert` (a truth `Splice` is one). */
export type LineSplice = { at: number; remove: number; insert: readonly RawLine[] };
type RangeChange = { range: { start: { line: number; character: number }; end: { line: number; character: number } }; text: string };

interface OpenDoc {
  uri: string;
  version: number;
  lines: RawLine[];
  /** The text at open or at the last save: what the server diffs a save against. */
  savedText: string;
}

export type ReloadStyle = "region" | "hunks";

export interface SaveOutcome {
  /** The record the save appended, when the server says so (`intent/saveProcessed`). */
  recordId?: string | null;
}

const SAVE_PROCESSED = "intent/saveProcessed";
const RENAMES_PROCESSED = "intent/renamesProcessed";
/** A workspace file the oracle never opens: `intent.blame` on it makes the server read the ledger. */
const BARRIER_FILE = "README.md";
const WAIT_MS = 20_000;

export class EditorDriver {
  private readonly docs = new Map<string, OpenDoc>();
  private readonly processed: { uri: string; version: number; recordId: string | null }[] = [];
  private readonly renamed: { files: { oldUri: string; newUri: string }[] }[] = [];
  private readonly settings: { contributor: { type: string; modelId?: string } } = { contributor: { type: "human" } };
  private configAnswers = 0;
  /**
   * Builds that send `intent/saveProcessed` announce each handled save; others are waited for through the
   * ledger. A build whose dist/server.js is a launcher holds the server in dist/intent-server.js beside it.
   */
  readonly announcesSaves = [SERVER_JS, join(dirname(SERVER_JS), "intent-server.js")].some(
    (file) => existsSync(file) && readFileSync(file, "utf8").includes(SAVE_PROCESSED),
  );

  private constructor(
    readonly client: LspClient,
    readonly root: string,
    private readonly ledgerFile: string,
  ) {
    client.connection.onNotification(SAVE_PROCESSED, (p: { uri: string; version: number; recordId: string | null }) => this.processed.push(p));
    client.connection.onNotification(RENAMES_PROCESSED, (p: { files: { oldUri: string; newUri: string }[] }) => this.renamed.push(p));
    client.connection.onRequest("workspace/configuration", (p: { items: { section?: string }[] }) => {
      this.configAnswers++;
      return p.items.map((i) => (i.section === "intentLsp" ? this.settings : null));
    });
  }

  static async start(root: string, ledgerFile: string): Promise<EditorDriver> {
    const client = await LspClient.start({ root, settings: { contributor: { type: "human" } } });
    const driver = new EditorDriver(client, root, ledgerFile);
    await driver.barrier();
    return driver;
  }

  isOpen(path: string): boolean {
    return this.docs.has(path);
  }

  text(path: string): string {
    return joinLines(this.doc(path).lines);
  }

  private doc(path: string): OpenDoc {
    const d = this.docs.get(path);
    if (!d) throw new Error(`${path} is not open in the oracle's editor`);
    return d;
  }

  async open(path: string): Promise<void> {
    const text = readFileSync(join(this.root, path), "utf8");
    const uri = this.client.uri(path);
    this.docs.set(path, { uri, version: 1, lines: splitRaw(text), savedText: text });
    await this.client.connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "typescript", version: 1, text } });
  }

  async close(path: string): Promise<void> {
    const d = this.doc(path);
    this.docs.delete(path);
    await this.client.connection.sendNotification("textDocument/didClose", { textDocument: { uri: d.uri } });
  }

  /**
   * Applies a step's splices as edits: whole lines, or (`fine`, for 1:1 line replacements) the characters
   * that differ and the line ending, as formatters send them. `oneNotification` sends them all in one
   * didChange (each change's range is relative to the text after the previous one, as LSP says).
   */
  async edit(path: string, splices: readonly LineSplice[], opts: { oneNotification: boolean; fine: boolean }): Promise<void> {
    const d = this.doc(path);
    for (const changes of spliceBatches(d.lines, splices, opts)) await this.send(d, changes);
  }

  /** Types, then undoes every keystroke in reverse order: the buffer ends as it began. */
  async typeAndUndo(path: string, typing: readonly Typing[]): Promise<void> {
    const d = this.doc(path);
    const undo: RangeChange[] = [];
    for (const t of typing) {
      const line = Math.min(t.line, d.lines.length - 1);
      const character = Math.min(t.character, d.lines[line]!.text.length);
      const at = { line, character };
      await this.sendApplied(d, { range: { start: at, end: at }, text: t.text });
      const end = t.text.endsWith("\n") ? { line: line + 1, character: 0 } : { line, character: character + t.text.length };
      undo.unshift({ range: { start: at, end }, text: "" });
    }
    for (const u of undo) await this.sendApplied(d, u);
  }

  /** Writes the buffer to disk and sends didSave, then waits until the server has handled the save. */
  async save(path: string): Promise<SaveOutcome> {
    const d = this.doc(path);
    const text = joinLines(d.lines);
    const seenBefore = this.processed.length;
    const ledgerBefore = this.announcesSaves ? 0 : countLines(this.ledgerFile);
    const expected = this.announcesSaves ? 0 : expectedSaveRecords(this.ledgerFile, path, text, d.savedText);
    writeFileSync(join(this.root, path), text);
    d.savedText = text;
    await this.client.connection.sendNotification("textDocument/didSave", { textDocument: { uri: d.uri } });
    if (this.announcesSaves) {
      // only a notification sent after this didSave counts (a save with no change since the last keeps its version)
      const p = await waitFor(
        () => this.processed.slice(seenBefore).find((x) => x.uri === d.uri && x.version >= d.version),
        `intent/saveProcessed for ${path} v${d.version}`,
      );
      return { recordId: p.recordId };
    }
    await waitFor(() => countLines(this.ledgerFile) >= ledgerBefore + expected || undefined, `${expected} ledger record(s) for the save of ${path}`);
    await this.barrier();
    return {};
  }

  /**
   * The editor takes the file's new content from disk (an agent wrote it): one change over the region from
   * the first to the last differing line (VS Code), or one change per diff hunk, bottom-up.
   */
  async reload(path: string, style: ReloadStyle): Promise<void> {
    await this.replaceText(path, readFileSync(join(this.root, path), "utf8"), style, true);
  }

  /**
   * Turns the buffer into `text`: as one region, or hunk by hunk bottom-up, in one didChange or (a person
   * editing) one notification per hunk.
   */
  async replaceText(path: string, text: string, style: ReloadStyle, oneNotification: boolean): Promise<void> {
    const d = this.doc(path);
    const next = splitRaw(text);
    const changes = reloadChanges(d.lines, next, style);
    d.lines = next;
    if (!changes.length) return;
    if (oneNotification) await this.send(d, changes);
    else for (const c of changes) await this.send(d, [c]);
  }

  /**
   * Renames a file as VS Code's explorer does: workspace/willRenameFiles, the rename on disk,
   * workspace/didRenameFiles, the document closed under its old URI and opened under the new one; then waits
   * until the server says it handled the rename.
   */
  async rename(from: string, to: string, afterMove?: () => Promise<void>): Promise<void> {
    const files = [{ oldUri: this.client.uri(from), newUri: this.client.uri(to) }];
    await this.client.connection.sendRequest("workspace/willRenameFiles", { files });
    mkdirSync(dirname(join(this.root, to)), { recursive: true });
    renameSync(join(this.root, from), join(this.root, to));
    await afterMove?.();
    const seen = this.renamed.length;
    await this.client.connection.sendNotification("workspace/didRenameFiles", { files });
    if (this.isOpen(from)) {
      await this.close(from);
      await this.open(to);
    }
    await waitFor(() => this.renamed.slice(seen).find((r) => r.files[0]?.newUri === files[0]!.newUri), `intent/renamesProcessed for ${from} → ${to}`);
  }

  /** The client's file watcher reports the file changed (didChangeWatchedFiles). */
  async watched(path: string, type: 1 | 2 | 3 = 2): Promise<void> {
    await this.client.notifyWatched(path, type);
  }

  /**
   * Writes the buffer and sends didSave, didClose and didOpen at once (an editor closing a tab right after
   * saving it, then opening it again), then waits until the server has handled the save.
   */
  async saveCloseOpen(path: string): Promise<void> {
    const d = this.doc(path);
    const seenBefore = this.processed.length;
    writeFileSync(join(this.root, path), joinLines(d.lines));
    await this.client.connection.sendNotification("textDocument/didSave", { textDocument: { uri: d.uri } });
    await this.close(path);
    await this.open(path);
    await waitFor(() => this.processed.slice(seenBefore).find((x) => x.uri === d.uri), `intent/saveProcessed for ${path}`);
  }

  /** A request that makes the server read the ledger to its end; it answers after any read already under way. */
  async barrier(): Promise<void> {
    await this.client.executeCommand("intent.blame", { path: BARRIER_FILE, startLine: 0, endLine: 0 });
  }

  /** Who the editor's saves are attributed to (an in-editor assistant is an AI contributor). */
  async setContributor(contributor: { type: string; modelId?: string }): Promise<void> {
    if (JSON.stringify(contributor) === JSON.stringify(this.settings.contributor)) return;
    this.settings.contributor = contributor;
    const answered = this.configAnswers;
    await this.client.connection.sendNotification("workspace/didChangeConfiguration", { settings: {} });
    await waitFor(() => this.configAnswers > answered || undefined, "the server to pull the changed settings");
    await this.barrier();
  }

  async hoverAll(path: string): Promise<Seen[]> {
    const d = this.doc(path);
    const out: Seen[] = [];
    const CHUNK = 250;
    for (let start = 0; start < d.lines.length; start += CHUNK) {
      const lines = Array.from({ length: Math.min(CHUNK, d.lines.length - start) }, (_, k) => start + k);
      const hovers = await Promise.all(
        lines.map((line) => this.client.request<Hover | null>("textDocument/hover", { textDocument: { uri: d.uri }, position: { line, character: 0 } })),
      );
      for (const h of hovers) out.push(parseHover(h ? (h.contents as { value: string }).value : undefined));
    }
    return out;
  }

  async stop(): Promise<void> {
    await this.client.stop();
  }

  private async send(d: OpenDoc, contentChanges: TextDocumentContentChangeEvent[]): Promise<void> {
    d.version++;
    await this.client.connection.sendNotification("textDocument/didChange", { textDocument: { uri: d.uri, version: d.version }, contentChanges });
  }

  /** Sends one change and applies it to the buffer (for edits not expressed as line splices). */
  private async sendApplied(d: OpenDoc, change: RangeChange): Promise<void> {
    const text = joinLines(d.lines);
    const offset = (p: { line: number; character: number }) => {
      let o = 0;
      for (let i = 0; i < p.line; i++) o += d.lines[i]!.text.length + d.lines[i]!.eol.length;
      return o + p.character;
    };
    d.lines = splitRaw(text.slice(0, offset(change.range.start)) + change.text + text.slice(offset(change.range.end)));
    await this.send(d, [change]);
  }
}

// --- text as lines with their endings -----------------------------------------------------------------

export function splitRaw(text: string): RawLine[] {
  const out: RawLine[] = [];
  const re = /\r\n|\n|\r/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push({ text: text.slice(last, m.index), eol: m[0] });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), eol: "" });
  return out;
}

export function joinLines(lines: readonly RawLine[]): string {
  let s = "";
  for (const l of lines) s += l.text + l.eol;
  return s;
}

function countLines(file: string): number {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.trim()).length;
  } catch {
    return 0;
  }
}

/**
 * The didChange notifications (each a list of changes) that apply `splices` to `lines`, which is updated.
 * `fine`: a 1:1 line replacement becomes the characters that differ and the line ending.
 */
export function spliceBatches(
  lines: RawLine[],
  splices: readonly LineSplice[],
  opts: { oneNotification: boolean; fine: boolean },
): TextDocumentContentChangeEvent[][] {
  const batches: TextDocumentContentChangeEvent[][] = [];
  for (const s of splices) {
    const insert = s.insert.map((l) => ({ text: l.text, eol: l.eol }));
    const changes = opts.fine && s.remove === 1 && insert.length === 1 ? fineChanges(lines[s.at]!, insert[0]!, s.at) : [wholeLines(s.at, s.remove, insert)];
    lines.splice(s.at, s.remove, ...insert);
    if (opts.oneNotification && batches.length) batches[0]!.push(...changes);
    else batches.push(changes);
  }
  return batches;
}

/** The changes of a reload from `old` to `next`: one region (VS Code), or one per diff hunk, bottom-up. */
export function reloadChanges(old: readonly RawLine[], next: readonly RawLine[], style: ReloadStyle): TextDocumentContentChangeEvent[] {
  return style === "region" ? regionChange(old, next) : hunkChanges(old, next);
}

function wholeLines(at: number, remove: number, insert: readonly RawLine[]): TextDocumentContentChangeEvent {
  return { range: { start: { line: at, character: 0 }, end: { line: at + remove, character: 0 } }, text: joinLines(insert) };
}

/** The characters that differ within one line, and its line ending if that changed; rightmost first. */
function fineChanges(old: RawLine, next: RawLine, line: number): TextDocumentContentChangeEvent[] {
  const out: TextDocumentContentChangeEvent[] = [];
  if (old.eol !== next.eol) out.push({ range: { start: { line, character: old.text.length }, end: { line: line + 1, character: 0 } }, text: next.eol });
  if (old.text !== next.text) {
    let p = 0;
    while (p < old.text.length && p < next.text.length && old.text[p] === next.text[p]) p++;
    let q = 0;
    while (q < old.text.length - p && q < next.text.length - p && old.text[old.text.length - 1 - q] === next.text[next.text.length - 1 - q]) q++;
    out.push({ range: { start: { line, character: p }, end: { line, character: old.text.length - q } }, text: next.text.slice(p, next.text.length - q) });
  }
  return out;
}

function same(a: RawLine, b: RawLine): boolean {
  return a.text === b.text && a.eol === b.eol;
}

function regionChange(old: readonly RawLine[], next: readonly RawLine[]): TextDocumentContentChangeEvent[] {
  let p = 0;
  while (p < old.length && p < next.length && same(old[p]!, next[p]!)) p++;
  let q = 0;
  while (q < old.length - p && q < next.length - p && same(old[old.length - 1 - q]!, next[next.length - 1 - q]!)) q++;
  if (p === old.length && p === next.length) return [];
  return [wholeLines(p, old.length - q - p, next.slice(p, next.length - q))];
}

function hunkChanges(old: readonly RawLine[], next: readonly RawLine[]): TextDocumentContentChangeEvent[] {
  const key = (l: RawLine) => l.text + l.eol;
  const hunks: { at: number; remove: number; insert: RawLine[] }[] = [];
  let i = 0;
  let j = 0;
  let open: { at: number; remove: number; insert: RawLine[] } | undefined;
  for (const part of diffArrays(old.map(key), next.map(key))) {
    const n = part.count ?? part.value.length;
    if (!part.added && !part.removed) {
      open = undefined;
      i += n;
      j += n;
      continue;
    }
    if (!open) hunks.push((open = { at: i, remove: 0, insert: [] }));
    if (part.removed) {
      open.remove += n;
      i += n;
    } else {
      open.insert.push(...next.slice(j, j + n));
      j += n;
    }
  }
  // bottom-up, so each range is still right in the text the previous changes left
  return hunks.reverse().map((h) => wholeLines(h.at, h.remove, h.insert));
}

/** Waits for a fact, checked often, with a deadline that fails with what was awaited. */
export async function waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`oracle: timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
