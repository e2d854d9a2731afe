import { randomUUID } from "node:crypto";
import fs, { appendFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Diagnostic, PublishDiagnosticsParams } from "vscode-languageserver-protocol";
import { inProcessServer, type ServerUnderTest } from "../support/inProcessServer";
import { TempWorkspace } from "../support/workspace";

/**
 * The server's own file watcher hears nothing in this file: a change on disk reaches the server only when
 * the test says so. That holds open, for as long as the test needs, the moment between a rule file changing
 * on disk and the reload its file event brings, which is otherwise a few milliseconds wide. The server in
 * process reads `watch` from Node's own `fs` module when it watches, so replacing it there deafens it.
 */
const realWatch = fs.watch;
beforeAll(() => {
  fs.watch = (() => ({ close: () => undefined, on: () => undefined })) as unknown as typeof fs.watch;
});
afterAll(() => {
  fs.watch = realWatch;
});

const CONFIG = ".orchestration/config.jsonc";
const LEDGER = ".orchestration/agent_trace.jsonl";
/** A problem on line 4 (0-based) of a six-line file. */
const LONG = `{\n  "exempt": [\n    "docs/**"\n  ],\n  "autoSelect": "yes"\n}\n`;
const LONG_PROBLEM = { start: { line: 4, character: 2 }, end: { line: 4, character: 14 } };
/** One line, with nothing wrong. */
const SHORT = `{}`;

/**
 * Diagnostics of a rule file are published only for the text they were computed from: the version the
 * editor has open, or what the file holds on disk. Problems found in an older text are never published for
 * a newer one, however the reload and the publish race.
 */
describe("a rule file's diagnostics belong to the text they were found in", () => {
  let ws: TempWorkspace;
  let server: ServerUnderTest;
  let wake: () => void = () => undefined;
  const published: PublishDiagnosticsParams[] = [];
  const ofConfig = () => published.filter((p) => p.uri === uri(CONFIG));
  const uri = (rel: string) => new URL(`file://${ws.path(rel)}`).href;

  afterEach(async () => {
    await server?.stop();
    ws?.dispose();
    published.length = 0;
  });

  async function start(): Promise<void> {
    server = await inProcessServer(ws.root, (p) => {
      published.push(p as PublishDiagnosticsParams);
      wake();
    });
  }

  /** Waits for the publishes to hold something, re-checking at each one (and failing after 10 s). */
  async function until<T>(probe: () => T | undefined, what: string): Promise<T> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const found = probe();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; published for the config: ${JSON.stringify(ofConfig(), null, 1)}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, 200);
        wake = () => {
          clearTimeout(t);
          r();
        };
      });
    }
  }

  const shape = (ds: Diagnostic[]) => ds.map((d) => [d.code, d.range]);

  it("closed: the file changed on disk and a publish comes before the reload: nothing is published for the old text", async () => {
    ws = new TempWorkspace();
    ws.write(CONFIG, LONG);
    await start();
    const first = await until(() => ofConfig().find((p) => p.diagnostics.length), "the long file's problem");
    expect([first.version, shape(first.diagnostics)]).toEqual([undefined, [["settings-invalid", LONG_PROBLEM]]]);

    ws.write(CONFIG, SHORT); // the server does not hear of it (see fs.watch above)
    const seen = published.length;
    // news in the ledger publishes the workspace's own files again: before the rules are read again
    const record = JSON.parse(ws.read(LEDGER).split("\n")[0]!);
    appendFileSync(ws.path(LEDGER), `${JSON.stringify({ ...record, id: randomUUID() })}\n`);
    const next = await until(() => published.slice(seen).find((p) => p.uri === uri(CONFIG)), "the next publish for the config");
    expect([next.version, shape(next.diagnostics)]).toEqual([undefined, []]); // the short file's: nothing wrong
  });

  it("open: a long text then a short one in quick succession: the short version never gets the long one's problems", async () => {
    ws = new TempWorkspace();
    ws.write(CONFIG, LONG);
    await start();
    await server.connection.sendNotification("textDocument/didOpen", { textDocument: { uri: uri(CONFIG), languageId: "jsonc", version: 1, text: LONG } });
    const v1 = await until(() => ofConfig().find((p) => p.version === 1), "the publish of version 1");
    expect(shape(v1.diagnostics)).toEqual([["settings-invalid", LONG_PROBLEM]]);
    // the rules are read from the buffer after a pause in typing; diagnostics are published sooner
    await server.connection.sendNotification("textDocument/didChange", { textDocument: { uri: uri(CONFIG), version: 2 }, contentChanges: [{ text: SHORT }] });
    await until(() => ofConfig().find((p) => p.version === 2 && p.diagnostics.length === 0), "the publish of version 2 after the reload");
    expect(
      ofConfig()
        .filter((p) => p.version === 2)
        .map((p) => shape(p.diagnostics)),
    ).toEqual([[]]);
  });
});
