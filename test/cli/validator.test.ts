import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { REPO_ROOT } from "../support/lspClient";
import { ensureBuilt } from "../support/builtDist";
import schema from "../../shared/schema/trace-record.schema.json";
import { ajvOptions } from "../../shared/schema/validatorOptions.json";

beforeAll(ensureBuilt);

describe("the record validator the build generates", () => {
  it("answers exactly as the schema compiled at run time, errors included", () => {
    const file = join(REPO_ROOT, "dist/trace-record-validator.js");
    expect(existsSync(file)).toBe(true);
    const prebuilt = require(file) as ((v: unknown) => boolean) & { errors?: unknown };
    const ajv = new Ajv2020(ajvOptions);
    addFormats(ajv);
    const runtime = ajv.compile(schema as object);
    const good = buildRecord({
      path: "src/a.ts",
      content: "a\n",
      ranges: [{ start_line: 1, end_line: 1 }],
      contributor: { type: "ai", modelId: "m" },
      sessionId: "s",
      toolVersion: "0.1.0",
      mutationClass: "INTENT_EVOLUTION",
      preHash: null,
      scope: "PASS",
      intentId: "INT-001",
    }) as unknown as Record<string, any>;
    const bad = [
      { ...good, id: "not-a-uuid" },
      { ...good, timestamp: "yesterday" },
      { ...good, files: [{ path: "a", conversations: [{ ranges: [{ start_line: "1", end_line: 0 }] }] }] },
      { ...good, version: 1, extra: true },
      {},
      "a string",
    ];
    for (const record of [good, ...bad]) {
      expect(prebuilt(record), JSON.stringify(record)).toBe(runtime(record));
      expect(prebuilt.errors ?? null).toEqual(runtime.errors ?? null);
    }
    expect(prebuilt(good)).toBe(true);
  });
});
