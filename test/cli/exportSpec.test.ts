import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import schema from "../../shared/schema/trace-record.schema.json";
import { ajvOptions } from "../../shared/schema/validatorOptions.json";
import { ensureBuilt } from "../support/builtDist";
import { hookReplyInProcess, runCli } from "../support/cliRunner";
import { claudeEdit } from "../support/hookPayloads";
import { TempWorkspace } from "../support/workspace";

/**
 * `intent export` hands out records that validate against the Agent Trace schema, checked here by a
 * validator compiled from the schema in this test (not intent-lsp's own): its own records byte for byte,
 * other tools' spec records as they are, the reference implementation's "1.0" and older dialects converted
 * as `intent migrate` converts them, and a line that cannot be a record left out, each said on stderr.
 */

beforeAll(ensureBuilt);

const LEDGER = ".orchestration/agent_trace.jsonl";
const API = "src/api/weather.ts";

const ajv = new Ajv2020(ajvOptions);
addFormats(ajv);
const validate = ajv.compile(schema as object);

const REFERENCE = {
  version: "1.0",
  id: "0d4b6c2e-6a55-4e0a-9c6f-2b8f3c1d9e70",
  timestamp: "2026-11-29T09:00:00Z",
  tool: { name: "agent-trace-hook" },
  files: [
    { path: "src/api/weather.ts", conversations: [{ contributor: { type: "ai", model_id: "claude-sonnet-4-5" }, ranges: [{ start_line: 1, end_line: 2 }] }] },
  ],
};
const OLDER = {
  version: "0.0.9",
  id: "5b0e7f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
  timestamp: "2026-11-29T09:01:00Z",
  files: [
    {
      relative_path: "src/api/weather.ts",
      conversations: [{ contributor: { entity_type: "AI", model_identifier: "gpt-5" }, ranges: [{ start_line: 3, end_line: 3 }] }],
    },
  ],
};
const OTHER_SPEC = {
  version: "0.1.0",
  id: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
  timestamp: "2026-11-29T09:02:00Z",
  tool: { name: "another-writer", version: "2.0.0" },
  files: [{ path: "src/api/weather.ts", conversations: [{ contributor: { type: "human" }, ranges: [{ start_line: 4, end_line: 4 }] }] }],
};
const BROKEN = { version: "0.1.0", id: "not-a-uuid", timestamp: "2026-11-29T09:03:00Z", files: [{ path: "a.ts", conversations: "no" }] };

describe("intent export", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.write(LEDGER, "");
    ws.select("INT-001");
  });
  afterEach(() => ws.dispose());

  it("writes only records that validate against the spec's schema, and says what it converted or left out", async () => {
    await hookReplyInProcess("claude-code", claudeEdit(ws, "PreToolUse", API, "export interface Weather {", "export interface Weather { // v2"), {
      cwd: ws.root,
    });
    ws.write(API, ws.read(API).replace("export interface Weather {", "export interface Weather { // v2"));
    await hookReplyInProcess("claude-code", claudeEdit(ws, "PostToolUse", API, "export interface Weather {", "export interface Weather { // v2"), {
      cwd: ws.root,
    });
    const own = ws.read(LEDGER).trimEnd();
    expect(own.split("\n")).toHaveLength(1);
    ws.write(LEDGER, `${own}\n${[REFERENCE, OLDER, OTHER_SPEC, BROKEN].map((r) => JSON.stringify(r)).join("\n")}\n`);

    const r = runCli(["export"], { cwd: ws.root });
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(validate(JSON.parse(line)), `${line}\n${JSON.stringify(validate.errors)}`).toBe(true);
    // its own record and another writer's valid spec record exactly as written
    expect(lines[0]).toBe(own);
    expect(lines[3]).toBe(JSON.stringify(OTHER_SPEC));
    // the converted ones keep what they said
    const reference = JSON.parse(lines[1]!);
    expect(reference.version).toBe("0.1.0");
    expect(reference.files[0].conversations[0].contributor).toEqual({ type: "ai", model_id: "anthropic/claude-sonnet-4-5" });
    expect(JSON.parse(lines[2]!).files[0].path).toBe("src/api/weather.ts");
    expect(r.stderr).toBe(
      "intent export: converted to Agent Trace 0.1.0 as `intent migrate` does: 1 of the reference implementation (version 1.0), 1 of the older dialect (relative_path)\n" +
        'intent export: left out record 5 of the period: does not match the Agent Trace schema: /id: must match format "uuid"; /files/0/conversations: must be array\n',
    );
  });
});
