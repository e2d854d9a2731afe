// Malformed requests are answered as the protocol says: InvalidParams (-32602), with a message naming the
// param that is wrong and what it must be. InternalError stays for real faults.
import { describe, expect, it } from "vitest";
import type { LspClient } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { stopAfterEach, TempWorkspace } from "../support/workspace";

const API = "src/api/weather.ts";
const at0 = { line: 0, character: 0 };

describe("malformed requests", () => {
  let ws: TempWorkspace | undefined;
  let client: LspClient | undefined;
  stopAfterEach(() => ({ client, ws }));

  async function answer(method: string, params: unknown): Promise<{ code: number; message: string } | "answered"> {
    return client!.request(method, params).then(
      () => "answered" as const,
      (e: { code: number; message: string }) => ({ code: e.code, message: e.message }),
    );
  }

  it("hover, codeLens, inlayHint, codeAction and executeCommand name the wrong param", async () => {
    ws = new TempWorkspace();
    client = await startInProcess({ root: ws.root });
    await client.open(API);
    const textDocument = { uri: client.uri(API) };
    const range = { start: at0, end: at0 };
    const cases: [string, unknown, string][] = [
      ["textDocument/hover", {}, 'textDocument/hover: "textDocument" must be a text document identifier such as {"uri":"file:///…"}; got nothing.'],
      [
        "textDocument/hover",
        { textDocument },
        'textDocument/hover: "position" must be a position such as {"line":0,"character":0} (non-negative integers); got nothing.',
      ],
      [
        "textDocument/hover",
        { textDocument, position: { line: "x", character: 0 } },
        'textDocument/hover: "position" must be a position such as {"line":0,"character":0} (non-negative integers); got {"line":"x","character":0}.',
      ],
      [
        "textDocument/codeLens",
        { textDocument: { uri: 5 } },
        'textDocument/codeLens: "textDocument" must be a text document identifier such as {"uri":"file:///…"}; got {"uri":5}.',
      ],
      [
        "textDocument/inlayHint",
        { textDocument, range: { start: at0, end: { line: -1, character: 0 } } },
        'textDocument/inlayHint: "range.end" must be a position such as {"line":0,"character":0} (non-negative integers); got {"line":-1,"character":0}.',
      ],
      [
        "textDocument/codeAction",
        { textDocument, range },
        'textDocument/codeAction: "context" must be a code action context such as {"diagnostics":[]}; got nothing.',
      ],
      [
        "textDocument/codeAction",
        { textDocument, range, context: { diagnostics: [{ range, message: 7 }] } },
        'textDocument/codeAction: "context.diagnostics[0].message" must be a string; got 7.',
      ],
      ["workspace/executeCommand", { command: 42 }, 'workspace/executeCommand: "command" must be a command name such as "intent.blame"; got 42.'],
      ["workspace/executeCommand", { command: "intent.blame", arguments: 5 }, 'workspace/executeCommand: "arguments" must be a list of arguments; got 5.'],
      [
        "workspace/executeCommand",
        { command: "intent.blame", arguments: [{ uri: textDocument.uri, startLine: "x" }] },
        'intent.blame: "startLine" must be a 0-based line number (a non-negative integer); got "x".',
      ],
      [
        "workspace/executeCommand",
        { command: "intent.showContext", arguments: [{ id: "INT-001", budget: -1 }] },
        'intent.showContext: "budget" must be a whole number of bytes, at least 256; got -1.',
      ],
      [
        "workspace/executeCommand",
        { command: "intent.selectIntent", arguments: [{ id: 5 }] },
        'intent.selectIntent: "id" must be an intent id such as "INT-001"; got 5.',
      ],
      [
        "workspace/executeCommand",
        { command: "intent.listIntents", arguments: [42] },
        'intent.listIntents: "arguments[0]" must be an object of named arguments such as {"id":"INT-001"}, or an intent id; got 42.',
      ],
      [
        "workspace/executeCommand",
        { command: "intent.reRecord", arguments: [{ path: API, startLine: 0, endLine: 1.5, intentId: "INT-001" }] },
        'intent.reRecord: "endLine" must be a 0-based line number (a non-negative integer); got 1.5.',
      ],
    ];
    for (const [method, params, message] of cases) {
      expect(await answer(method, params), `${method} ${JSON.stringify(params)}`).toEqual({ code: -32602, message });
    }
    // well-formed requests are still answered
    expect(await answer("textDocument/hover", { textDocument, position: at0 })).toBe("answered");
    expect(await answer("textDocument/codeAction", { textDocument, range, context: { diagnostics: [] } })).toBe("answered");
    expect(await answer("workspace/executeCommand", { command: "intent.listIntents", arguments: [null] })).toBe("answered");
  });
});
