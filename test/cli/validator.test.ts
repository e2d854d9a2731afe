import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { agentRecordLine } from "../support/recordLines";
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
    const good = JSON.parse(agentRecordLine("src/a.ts", "a\n", { contributor: { type: "ai", modelId: "m" } })) as Record<string, any>;
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
