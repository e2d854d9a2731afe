import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  ErrorCodes,
  ResponseError,
  type MessageReader,
  type MessageWriter,
  StreamMessageReader,
  StreamMessageWriter,
  type CodeAction,
  type Diagnostic,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type Range,
} from "vscode-languageserver-protocol/node";

/** The checkout's root, found from this file whether it runs from scripts/ or bundled into dist/. */
export const REPO_ROOT = (() => {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "server/src"))) return dir;
    if (dirname(dir) === dir) return resolve(__dirname, "../..");
  }
})();
export const SERVER_JS = join(REPO_ROOT, "dist/server.js");

export interface ClientOptions {
  root: string;
  /** What the client answers to `workspace/configuration` for section `intentLsp`. */
  settings?: Record<string, unknown>;
  /** Advertise dynamic file-watcher registration (VS Code does; Neovim 0.10 on Linux does not). */
  watchedFiles?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Advertise workspace-folder support (default true; some clients do not). */
  workspaceFolders?: boolean;
  /** Receives the value of every `$/progress` notification. */
  onProgress?: (value: unknown) => void;
  /** Answer the server's `window/workDoneProgress/create` with an error, as a client may that wants no progress. */
  refuseProgress?: boolean;
  /** Another server script to talk to (the benchmark's no-op baseline); default the built intent-lsp. */
  serverJs?: string;
  /**
   * A server already running in this process (the tests' in-process mode), instead of spawning one: the
   * same JSON-RPC over in-memory streams. Such a client has no `process`, and `env` cannot reach it.
   */
  transport?: ClientTransport;
}

/** The two ends of a connection to a server in this process, and how to let it go. */
export interface ClientTransport {
  reader: MessageReader;
  writer: MessageWriter;
  close(): void;
}

/**
 * A minimal LSP client that talks JSON-RPC to the built server over stdio, as an editor does. Used by the
 * protocol tests, by `npm start`'s demo and by the benchmark.
 */
export class LspClient {
  readonly connection: ProtocolConnection;
  private readonly child: ChildProcessWithoutNullStreams | undefined;
  readonly diagnostics = new Map<string, PublishDiagnosticsParams>();
  /** Every publication, in the order it arrived. */
  readonly publications: PublishDiagnosticsParams[] = [];
  readonly logs: string[] = [];
  /** Every `window/showMessage` (its type: 1 error, 2 warning, 3 info, 4 log), in order. */
  readonly shown: { type: number; message: string }[] = [];
  /** Every `intent/saveProcessed` the server sent, in order. */
  readonly savesProcessed: { uri: string; version: number; recordId: string | null }[] = [];
  /** Every `intent/renamesProcessed` the server sent, in order. */
  readonly renamesProcessed: { files: { oldUri: string; newUri: string }[]; recordIds: string[] }[] = [];
  private waiters: (() => void)[] = [];
  private versions = new Map<string, number>();
  private texts = new Map<string, string>();
  stderr = "";

  private constructor(readonly options: ClientOptions) {
    if (options.transport) {
      if (options.env) throw new Error("LspClient: a server in process shares this process's environment; spawn it to give it `env`");
      this.connection = createProtocolConnection(options.transport.reader, options.transport.writer);
    } else {
      const child = spawn(process.execPath, [options.serverJs ?? SERVER_JS, "--stdio"], { env: { ...process.env, ...options.env }, cwd: options.root });
      child.stderr.on("data", (d) => (this.stderr += d));
      this.child = child;
      this.connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    }
    this.connection.onNotification("textDocument/publishDiagnostics", (p: PublishDiagnosticsParams) => {
      this.diagnostics.set(p.uri, p);
      this.publications.push(p);
      this.wake();
    });
    this.connection.onNotification("window/logMessage", (p: { message: string }) => this.logs.push(p.message));
    this.connection.onNotification("intent/saveProcessed", (p: { uri: string; version: number; recordId: string | null }) => {
      this.savesProcessed.push(p);
      this.wake();
    });
    this.connection.onNotification("intent/renamesProcessed", (p: { files: { oldUri: string; newUri: string }[]; recordIds: string[] }) => {
      this.renamesProcessed.push(p);
      this.wake();
    });
    this.connection.onNotification("window/showMessage", (p: { type: number; message: string }) => {
      this.logs.push(p.message);
      this.shown.push({ type: p.type, message: p.message });
      this.wake();
    });
    this.connection.onRequest("window/showMessageRequest", (p: { message: string }) => {
      this.logs.push(p.message);
      return null;
    });
    this.connection.onRequest("workspace/configuration", (p: { items: { section?: string }[] }) =>
      p.items.map((i) => (i.section === "intentLsp" ? (this.options.settings ?? {}) : null)),
    );
    this.connection.onRequest("client/registerCapability", () => null);
    this.connection.onRequest("client/unregisterCapability", () => null);
    this.connection.onRequest("window/workDoneProgress/create", () =>
      this.options.refuseProgress ? new ResponseError(ErrorCodes.InternalError, "this client shows no progress") : null,
    );
    this.connection.onNotification("$/progress", (p: { value: unknown }) => this.options.onProgress?.(p.value));
    this.connection.onRequest("workspace/codeLens/refresh", () => null);
    this.connection.onRequest("workspace/inlayHint/refresh", () => null);
    this.connection.onRequest("workspace/diagnostic/refresh", () => null);
    this.connection.listen();
  }

  /** The server's process; a client of a server in process has none. */
  get process(): ChildProcessWithoutNullStreams {
    if (!this.child) throw new Error("LspClient: this client talks to a server in process, which has no process of its own");
    return this.child;
  }

  static async start(options: ClientOptions): Promise<LspClient> {
    const client = new LspClient(options);
    const rootUri = pathToFileURL(options.root).href;
    await client.connection.sendRequest("initialize", {
      // in process: no parent-process watchdog, which would end this process with the server
      processId: options.transport ? null : process.pid,
      clientInfo: { name: "intent-lsp-test-client" },
      rootUri,
      ...(options.workspaceFolders === false ? {} : { workspaceFolders: [{ uri: rootUri, name: "ws" }] }),
      capabilities: {
        workspace: {
          configuration: true,
          workspaceFolders: options.workspaceFolders ?? true,
          didChangeWatchedFiles: { dynamicRegistration: options.watchedFiles ?? false },
          codeLens: { refreshSupport: true },
          inlayHint: { refreshSupport: true },
        },
        textDocument: {
          synchronization: { didSave: true, willSave: true, willSaveWaitUntil: true },
          publishDiagnostics: { relatedInformation: true, versionSupport: true },
          codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ["quickfix", "refactor"] } } },
          hover: { contentFormat: ["markdown", "plaintext"] },
        },
        window: { workDoneProgress: true },
      },
    });
    await client.connection.sendNotification("initialized", {});
    return client;
  }

  uri(relPath: string): string {
    return pathToFileURL(join(this.options.root, relPath)).href;
  }

  text(relPath: string): string {
    return this.texts.get(this.uri(relPath)) ?? readFileSync(join(this.options.root, relPath), "utf8");
  }

  async open(relPath: string, languageId = "plaintext"): Promise<string> {
    const uri = this.uri(relPath);
    const text = readFileSync(join(this.options.root, relPath), "utf8");
    this.versions.set(uri, 1);
    this.texts.set(uri, text);
    await this.connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId, version: 1, text } });
    return uri;
  }

  /** Replaces `range` with `text`, as an editor sends an incremental change. */
  async edit(relPath: string, range: Range, text: string): Promise<void> {
    const uri = this.uri(relPath);
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    this.texts.set(uri, applyEdit(this.texts.get(uri) ?? "", range, text));
    await this.connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version },
      contentChanges: [{ range, text }],
    });
  }

  /** Replaces the whole of line `line` (0-based) with `text`. */
  async setLine(relPath: string, line: number, text: string): Promise<void> {
    const current = this.text(relPath).split("\n")[line] ?? "";
    await this.edit(relPath, { start: { line, character: 0 }, end: { line, character: current.length } }, text);
  }

  async insertLines(relPath: string, line: number, lines: string[]): Promise<void> {
    const at = { line, character: 0 };
    await this.edit(relPath, { start: at, end: at }, lines.map((l) => `${l}\n`).join(""));
  }

  async deleteLines(relPath: string, line: number, count: number): Promise<void> {
    await this.edit(relPath, { start: { line, character: 0 }, end: { line: line + count, character: 0 } }, "");
  }

  /**
   * Saves as an editor does (the file written, then didSave) and waits until the server says it handled
   * that save; the id of the record it appended, or null.
   */
  async save(relPath: string): Promise<string | null> {
    const uri = this.uri(relPath);
    writeFileSync(join(this.options.root, relPath), this.text(relPath));
    const seen = this.savesProcessed.length;
    await this.connection.sendNotification("textDocument/didSave", { textDocument: { uri } });
    const done = await this.waitFor(() => this.savesProcessed.slice(seen).find((s) => s.uri === uri), `the save of ${relPath} to be processed`, 30_000);
    return done.recordId;
  }

  /**
   * Renames a file as VS Code's explorer does: `workspace/willRenameFiles`, the rename on disk,
   * `workspace/didRenameFiles`; an open document is closed under its old name and opened under the new one.
   * Waits until the server says it handled the rename; the ids of the records it appended.
   */
  async renameFile(from: string, to: string): Promise<string[]> {
    const files = [{ oldUri: this.uri(from), newUri: this.uri(to) }];
    await this.connection.sendRequest("workspace/willRenameFiles", { files });
    mkdirSync(dirname(join(this.options.root, to)), { recursive: true });
    renameSync(join(this.options.root, from), join(this.options.root, to));
    const seen = this.renamesProcessed.length;
    await this.connection.sendNotification("workspace/didRenameFiles", { files });
    const wasOpen = this.texts.has(this.uri(from));
    if (wasOpen) {
      await this.close(from);
      await this.open(to);
    }
    const done = await this.waitFor(
      () => this.renamesProcessed.slice(seen).find((r) => r.files[0]?.newUri === files[0]!.newUri),
      `the rename of ${from} to be processed`,
    );
    return done.recordIds;
  }

  /** Replaces the whole buffer with `text` as an editor reloading a file does: one change spanning every line. */
  async replaceAll(relPath: string, text: string): Promise<void> {
    const lines = this.text(relPath).split("\n");
    await this.edit(relPath, { start: { line: 0, character: 0 }, end: { line: lines.length - 1, character: lines[lines.length - 1]!.length } }, text);
  }

  /** Sends several changes in one didChange notification (in the order given), as multi-cursor edits and formatters do. */
  async editMany(relPath: string, edits: { range: Range; text: string }[]): Promise<void> {
    const uri = this.uri(relPath);
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    let text = this.texts.get(uri) ?? "";
    for (const e of edits) text = applyEdit(text, e.range, e.text);
    this.texts.set(uri, text);
    await this.connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version },
      contentChanges: edits.map((e) => ({ range: e.range, text: e.text })),
    });
  }

  /** The version of the last change sent for a file. */
  version(relPath: string): number {
    return this.versions.get(this.uri(relPath)) ?? 1;
  }

  /** Waits for `probe` to return something, re-checking whenever the server sends a notification. */
  async waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = probe();
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}\nserver stderr: ${this.stderr}`);
      await new Promise<void>((resolveWait) => {
        const t = setTimeout(resolveWait, Math.min(left, 100));
        this.waiters.push(() => {
          clearTimeout(t);
          resolveWait();
        });
      });
    }
  }

  async close(relPath: string): Promise<void> {
    await this.connection.sendNotification("textDocument/didClose", { textDocument: { uri: this.uri(relPath) } });
  }

  /** Tells the server a file changed on disk, as a client with file watching does. */
  async notifyWatched(relPath: string, type: 1 | 2 | 3 = 2): Promise<void> {
    await this.connection.sendNotification("workspace/didChangeWatchedFiles", { changes: [{ uri: this.uri(relPath), type }] });
  }

  async codeActions(relPath: string, range: Range, diagnostics: Diagnostic[] = []): Promise<CodeAction[]> {
    return (await this.connection.sendRequest("textDocument/codeAction", {
      textDocument: { uri: this.uri(relPath) },
      range,
      context: { diagnostics },
    })) as CodeAction[];
  }

  async executeCommand(command: string, ...args: unknown[]): Promise<unknown> {
    return this.connection.sendRequest("workspace/executeCommand", { command, arguments: args });
  }

  /** The hover's text at `line` (0-based) of `relPath`, "" when there is none. */
  async hoverText(relPath: string, line: number, character = 0): Promise<string> {
    const h = await this.request<{ contents: { value: string } } | null>("textDocument/hover", {
      textDocument: { uri: this.uri(relPath) },
      position: { line, character },
    });
    return h ? h.contents.value : "";
  }

  async request<T>(method: string, params: unknown): Promise<T> {
    return (await this.connection.sendRequest(method, params)) as T;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Waits for the diagnostics the server published for the document's current version: it has handled every change sent. */
  async waitForPublishOfCurrentVersion(relPath: string): Promise<Diagnostic[]> {
    const uri = this.uri(relPath);
    const version = this.version(relPath);
    const p = await this.waitFor(() => {
      const d = this.diagnostics.get(uri);
      return d && d.version === version ? d : undefined;
    }, `the publish for version ${version} of ${relPath}`);
    return p.diagnostics;
  }

  diagnosticsFor(relPath: string): Diagnostic[] {
    return this.diagnostics.get(this.uri(relPath))?.diagnostics ?? [];
  }

  /** Waits until the diagnostics published for a file satisfy `predicate`; fails with what was seen. */
  async waitForDiagnostics(relPath: string, predicate: (d: Diagnostic[]) => boolean, timeoutMs = 10_000): Promise<Diagnostic[]> {
    const uri = this.uri(relPath);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = this.diagnostics.get(uri);
      if (current && predicate(current.diagnostics)) return current.diagnostics;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `timed out waiting for diagnostics on ${relPath}; last published: ${JSON.stringify(current?.diagnostics ?? "nothing", null, 1)}\nserver stderr: ${this.stderr}`,
        );
      }
      await new Promise<void>((resolveWait) => {
        const t = setTimeout(resolveWait, Math.min(left, 250));
        this.waiters.push(() => {
          clearTimeout(t);
          resolveWait();
        });
      });
    }
  }

  async stop(): Promise<void> {
    try {
      await Promise.race([this.connection.sendRequest("shutdown"), new Promise((r) => setTimeout(r, 2000))]);
      // "exit" ends the server's process: in process, that is this one
      if (this.child) await this.connection.sendNotification("exit");
    } catch {
      /* already gone */
    }
    this.connection.dispose();
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      // the server may still be writing its files as it goes (its session file, caches): a caller removes
      // the workspace next, so stop returns once the process is gone. It is given a moment to leave on its
      // own after "exit", as editors give it (it writes its code cache as it leaves), then ended
      const exited = new Promise((resolve) => child.once("exit", resolve));
      await Promise.race([exited, new Promise((r) => setTimeout(r, 1_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
    this.options.transport?.close();
  }
}

export function applyEdit(text: string, range: Range, newText: string): string {
  const offset = (p: Range["start"]) => {
    const lines = text.split("\n");
    let o = 0;
    for (let i = 0; i < p.line && i < lines.length; i++) o += lines[i].length + 1;
    return o + p.character;
  };
  return text.slice(0, offset(range.start)) + newText + text.slice(offset(range.end));
}

export const line = (n: number, from = 0, to = from) => ({ start: { line: n, character: from }, end: { line: n, character: to } });
