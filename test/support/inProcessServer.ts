import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { pathToFileURL } from "node:url";
import { createProtocolConnection, StreamMessageReader, StreamMessageWriter, type ProtocolConnection } from "vscode-languageserver-protocol/node";
import { ensureBuilt } from "./builtDist";
import { type ClientOptions, type ClientTransport, LspClient, REPO_ROOT, SERVER_JS } from "./lspClient";

type Embedded = typeof import("../../server/src/lsp/inProcess");
let embedded: Embedded | undefined;

/**
 * The server's own code, as dist/server.js runs it: the bundle dist/intent-server-main.js (built first when
 * older than the sources), loaded by Node. A test file that imported the sources instead would transform and
 * load all of them in its own worker, a second of each protocol test file's time.
 */
async function serveStreams(input: PassThrough, output: PassThrough): Promise<void> {
  if (!embedded) {
    await ensureBuilt();
    // the source itself under `npm run mutate` (test/support/sourceRequire.ts), so that a mutant in it is seen
    const main = process.env["INTENT_LSP_CLI_FROM_SOURCE"] ? "server/src/lsp/inProcess.ts" : "dist/intent-server-main.js";
    embedded = require(join(REPO_ROOT, main)) as Embedded;
  }
  await embedded.serveStreams(input, output);
}

/**
 * A language server and a client connection to it. In process (the server's own code over a pair of
 * in-memory streams, the same JSON-RPC framing as stdio) for the fuzz's thousands of sequences; or spawned
 * from dist/server.js over stdio, as editors run it, for the smoke run that keeps the two honest.
 */
export interface ServerUnderTest {
  connection: ProtocolConnection;
  /** False once the server process has exited (always true in process: an escape would fail the test run). */
  alive(): boolean;
  stderr(): string;
  stop(): Promise<void>;
}

function clientSide(connection: ProtocolConnection, onPublish: (p: unknown) => void): void {
  connection.onNotification("textDocument/publishDiagnostics", onPublish);
  connection.onRequest("workspace/configuration", (p: { items: unknown[] }) => p.items.map(() => ({})));
  for (const m of [
    "client/registerCapability",
    "client/unregisterCapability",
    "window/workDoneProgress/create",
    "workspace/codeLens/refresh",
    "workspace/inlayHint/refresh",
  ]) {
    connection.onRequest(m, () => null);
  }
  connection.listen();
}

async function initialize(connection: ProtocolConnection, root: string): Promise<void> {
  const rootUri = pathToFileURL(root).href;
  await connection.sendRequest("initialize", {
    processId: null, // in process: no parent-process watchdog that would end the test runner
    clientInfo: { name: "intent-lsp-fuzz" },
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: "ws" }],
    capabilities: {
      workspace: { configuration: true, workspaceFolders: true, codeLens: { refreshSupport: true }, inlayHint: { refreshSupport: true } },
      textDocument: { publishDiagnostics: { versionSupport: true }, hover: { contentFormat: ["markdown"] } },
      window: { workDoneProgress: true },
    },
  });
  await connection.sendNotification("initialized", {});
}

/**
 * The server's own code on a pair of in-memory streams, for an LspClient (`transport`): the protocol tests
 * where the spawned binary is not the subject. The server's side stays open after close, as in stop() below.
 */
export async function inProcessTransport(): Promise<ClientTransport> {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  await serveStreams(toServer, toClient);
  return { reader: new StreamMessageReader(toClient), writer: new StreamMessageWriter(toServer), close: () => undefined };
}

/** An LspClient of a server in process (see inProcessTransport). */
export async function startInProcess(options: Omit<ClientOptions, "transport" | "env" | "serverJs">): Promise<LspClient> {
  return LspClient.start({ ...options, transport: await inProcessTransport() });
}

export async function inProcessServer(root: string, onPublish: (p: unknown) => void): Promise<ServerUnderTest> {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const logs: string[] = [];
  await serveStreams(toServer, toClient);
  const connection = createProtocolConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
  connection.onNotification("window/logMessage", (p: { message: string }) => logs.push(p.message));
  clientSide(connection, onPublish);
  await initialize(connection, root);
  return {
    connection,
    alive: () => true,
    stderr: () => logs.join("\n"),
    async stop() {
      await connection.sendRequest("shutdown").catch(() => undefined); // never "exit": that ends this process
      // The server's side stays open: work still finishing after shutdown (a ledger read, a save) may log,
      // and writes into a stream nobody reads are harmless, where writes into a disposed connection throw.
      connection.dispose();
    },
  };
}

export async function spawnedServer(root: string, onPublish: (p: unknown) => void): Promise<ServerUnderTest> {
  const child: ChildProcess = spawn(process.execPath, [SERVER_JS, "--stdio"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  clientSide(connection, onPublish);
  await initialize(connection, root);
  return {
    connection,
    alive: () => child.exitCode === null && child.signalCode === null,
    stderr: () => stderr,
    async stop() {
      await Promise.race([connection.sendRequest("shutdown"), new Promise((r) => setTimeout(r, 2000))]).catch(() => undefined);
      await connection.sendNotification("exit").catch(() => undefined);
      connection.dispose();
      child.kill();
    },
  };
}
