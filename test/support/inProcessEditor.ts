import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Hover, Range } from "vscode-languageserver-protocol";
import { type CliResult, runCli, runCliInProcess } from "./cliRunner";
import { inProcessServer, type ServerUnderTest } from "./inProcessServer";
import { applyEdit } from "./lspClient";

/** The owner a hover or a blame row names: "human", a model id, or untraced / edited / indexing. */
export type Owner = string;

/**
 * An editor talking to the server in process (test/support/inProcessServer.ts): open, change, save, close
 * and watched-file events sent exactly as given, in the order given, so that a test decides the order in
 * which the editor's events, an agent's write and its record arrive. Hover and blame are read as owners.
 */
export class InProcessEditor {
  private readonly texts = new Map<string, string>();
  private readonly versions = new Map<string, number>();
  private readonly processed: { uri: string; recordId: string | null }[] = [];
  private wakers: (() => void)[] = [];

  private constructor(
    readonly root: string,
    readonly server: ServerUnderTest,
  ) {
    server.connection.onNotification("intent/saveProcessed", (p: { uri: string; recordId: string | null }) => {
      this.processed.push(p);
      for (const w of this.wakers.splice(0)) w();
    });
  }

  static async start(root: string): Promise<InProcessEditor> {
    return new InProcessEditor(root, await inProcessServer(root, () => undefined));
  }

  uri(path: string): string {
    return pathToFileURL(join(this.root, path)).href;
  }

  text(path: string): string {
    return this.texts.get(path) ?? "";
  }

  async open(path: string, text: string): Promise<void> {
    this.texts.set(path, text);
    this.versions.set(path, 1);
    await this.server.connection.sendNotification("textDocument/didOpen", {
      textDocument: { uri: this.uri(path), languageId: "typescript", version: 1, text },
    });
  }

  /** One didChange with these changes, applied in order (an editor's reload of one hunk, a keystroke). */
  async change(path: string, edits: { range: Range; text: string }[]): Promise<void> {
    let text = this.text(path);
    for (const e of edits) text = applyEdit(text, e.range, e.text);
    this.texts.set(path, text);
    const version = (this.versions.get(path) ?? 1) + 1;
    this.versions.set(path, version);
    await this.server.connection.sendNotification("textDocument/didChange", { textDocument: { uri: this.uri(path), version }, contentChanges: edits });
  }

  /** Replaces line `line` (0-based) of the buffer. */
  async setLine(path: string, line: number, text: string): Promise<void> {
    const current = this.text(path).split("\n")[line]!;
    await this.change(path, [{ range: { start: { line, character: 0 }, end: { line, character: current.length } }, text }]);
  }

  /**
   * The buffer written to disk (the editor's half of a save; `didSave` is the other), once the server has
   * handled every change sent before: a request's answer comes after the notifications sent ahead of it.
   */
  async writeBuffer(path: string): Promise<void> {
    await this.handled();
    writeFileSync(join(this.root, path), this.text(path));
  }

  /** Resolves once the server has handled every notification sent so far. */
  async handled(): Promise<void> {
    await this.server.connection.sendRequest("textDocument/hover", { textDocument: { uri: this.uri("nothing-open") }, position: { line: 0, character: 0 } });
  }

  /** didSave, without waiting for the server to handle it. */
  async sendDidSave(path: string): Promise<void> {
    await this.server.connection.sendNotification("textDocument/didSave", { textDocument: { uri: this.uri(path) } });
  }

  /** The editor saves (file written, then didSave) and waits for `intent/saveProcessed`: the record id or null. */
  async save(path: string): Promise<string | null> {
    await this.writeBuffer(path);
    const seen = this.processed.length;
    await this.sendDidSave(path);
    return (await this.until(() => this.processed.slice(seen).find((p) => p.uri === this.uri(path)))).recordId;
  }

  /** Waits until the saves sent so far have all been handled. */
  async savesHandled(count: number): Promise<void> {
    await this.until(() => (this.processed.length >= count ? true : undefined));
  }

  get savesProcessed(): number {
    return this.processed.length;
  }

  async close(path: string): Promise<void> {
    await this.server.connection.sendNotification("textDocument/didClose", { textDocument: { uri: this.uri(path) } });
  }

  async watched(path: string): Promise<void> {
    await this.server.connection.sendNotification("workspace/didChangeWatchedFiles", { changes: [{ uri: this.uri(path), type: 2 }] });
  }

  /**
   * The server reads the ledger to its end (after any read under way) and hands what it brings to the open
   * documents: `intent.blame` of a file that is not open does exactly that before answering.
   */
  async ledgerRead(otherFile: string): Promise<void> {
    await this.server.connection.sendRequest("workspace/executeCommand", {
      command: "intent.blame",
      arguments: [{ path: otherFile, startLine: 0, endLine: 0 }],
    });
  }

  async hoverOwner(path: string, line: number): Promise<Owner> {
    const h = (await this.server.connection.sendRequest("textDocument/hover", {
      textDocument: { uri: this.uri(path) },
      position: { line, character: 0 },
    })) as Hover | null;
    return hoverOwnerOf(h);
  }

  /** Each line's owner and the trace the hover names (`owner trace-id`), to compare with `blameTraces`. */
  async hoverTraces(path: string): Promise<string[]> {
    const out: string[] = [];
    for (let l = 0; l < this.lineCount(path); l++) {
      const h = (await this.server.connection.sendRequest("textDocument/hover", {
        textDocument: { uri: this.uri(path) },
        position: { line: l, character: 0 },
      })) as Hover | null;
      const trace = h ? /trace `([^`]+)`/.exec((h.contents as { value: string }).value)?.[1] : undefined;
      out.push(`${hoverOwnerOf(h)}${trace ? ` ${trace}` : ""}`);
    }
    return out;
  }

  private lineCount(path: string): number {
    return this.text(path).split("\n").length - (this.text(path).endsWith("\n") ? 1 : 0);
  }

  async hoverOwners(path: string): Promise<Owner[]> {
    const out: Owner[] = [];
    for (let l = 0; l < this.lineCount(path); l++) out.push(await this.hoverOwner(path, l));
    return out;
  }

  async stop(): Promise<void> {
    await this.server.stop();
  }

  private async until<T>(probe: () => T | undefined): Promise<T> {
    for (;;) {
      const found = probe();
      if (found !== undefined) return found;
      await new Promise<void>((r) => this.wakers.push(r));
    }
  }
}

/** A hover's owner; no hover at all is what an untraced line of a file the ledger never recorded shows. */
export function hoverOwnerOf(h: Hover | null): Owner {
  const text = h ? (h.contents as { value: string }).value : "";
  if (!h || text.startsWith("**Untraced")) return "untraced";
  if (text.startsWith("**Edited")) return "edited";
  if (text.startsWith("**Indexing")) return "indexing";
  const m = /\n\n(human|ai|mixed|unknown)(?: · (\S+))? · /.exec(text);
  return m ? (m[2] ?? m[1]!) : `?${text}`;
}

/** `intent blame --json` as the terminal shows it: the owner of every line of the file on disk. */
export function blameOwners(root: string, path: string): Owner[] {
  const r = runCli(["blame", path, "--json"], { cwd: root });
  if (r.status !== 0) throw new Error(`intent blame ${path} failed (${r.status}): ${r.stderr}`);
  return (JSON.parse(r.stdout).lines as { kind: string; contributor?: string; model?: string }[]).map((l) =>
    l.kind === "traced" ? (l.model ?? l.contributor!) : l.kind,
  );
}

/** `intent blame --json`'s owner and trace id of every line (`owner trace-id`), as `hoverTraces` reads hover. */
export function blameTraces(root: string, path: string): string[] {
  return blameRows(path, runCli(["blame", path, "--json"], { cwd: root }));
}

/** blameTraces with the command run in this process (runCliInProcess): for tests where the CLI's process is not the subject. */
export async function blameTracesInProcess(root: string, path: string): Promise<string[]> {
  return blameRows(path, await runCliInProcess(["blame", path, "--json"], { cwd: root }));
}

function blameRows(path: string, r: CliResult): string[] {
  if (r.status !== 0) throw new Error(`intent blame ${path} failed (${r.status}): ${r.stderr}`);
  return (JSON.parse(r.stdout).lines as { kind: string; contributor?: string; model?: string; traceId?: string }[]).map((l) =>
    l.kind === "traced" ? `${l.model ?? l.contributor!}${l.traceId ? ` ${l.traceId}` : ""}` : l.kind,
  );
}
