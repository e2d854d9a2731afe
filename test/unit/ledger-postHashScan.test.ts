import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileHash } from "../../server/src/engine/hashing";
import { ledgerHasPostHash, ledgerNewestPostHash } from "../../server/src/engine/ledger/postHashScan";
import { buildRecord } from "../../server/src/engine/ledger/record";

const record = (path: string, content: string) =>
  JSON.stringify(
    buildRecord({ path, content, ranges: [{ start_line: 1, end_line: 1 }], contributor: { type: "ai" }, sessionId: "s", toolVersion: "0", mutationClass: "INTENT_EVOLUTION", preHash: null, scope: "PASS" }),
  );

describe("ledgerHasPostHash", () => {
  it("finds a recorded content only for its own path, across chunk boundaries, in either ledger", async () => {
    const root = mkdtempSync(join(tmpdir(), "posthash-"));
    const filler = record("src/filler.ts", "x".repeat(900));
    // about 4.3 MB of filler so the target line straddles the 4 MiB read boundary
    const lines = Array.from({ length: 4300 }, () => filler);
    const boundaryLine = Math.floor((4 * 1024 * 1024) / (filler.length + 1));
    lines.splice(boundaryLine, 0, record("src/a.ts", "alpha\n"));
    writeFileSync(join(root, "ledger.jsonl"), `${lines.join("\n")}\n`);
    writeFileSync(join(root, "other.jsonl"), `${record("src/b.ts", "beta\n")}\n`);
    const ledgers = ["ledger.jsonl", "other.jsonl", "missing.jsonl"];

    expect(await ledgerHasPostHash(root, ledgers, "src/a.ts", fileHash("alpha\n"))).toBe(true);
    expect(await ledgerHasPostHash(root, ledgers, "src/b.ts", fileHash("beta\n"))).toBe(true);
    expect(await ledgerHasPostHash(root, ledgers, "src/c.ts", fileHash("alpha\n"))).toBe(false);
    expect(await ledgerHasPostHash(root, ledgers, "src/a.ts", fileHash("alpha!\n"))).toBe(false);
    rmSync(root, { recursive: true });
  });
});

describe("ledgerNewestPostHash", () => {
  it("answers from the newest record of the path, reading back across chunk boundaries", async () => {
    const dir = mkdtempSync(join(tmpdir(), "newest-"));
    const file = join(dir, "ledger.jsonl");
    const rec = (path: string, content: string) =>
      JSON.stringify(buildRecord({ path, content, ranges: [{ start_line: 1, end_line: 1 }], contributor: { type: "ai" }, sessionId: "s", toolVersion: "0", mutationClass: "INTENT_EVOLUTION", preHash: null, scope: "PASS" }));
    const filler = Array.from({ length: 6000 }, (_, i) => rec(`other/${i}.ts`, `x${i}\n`));
    writeFileSync(file, [rec("a.ts", "one\n"), ...filler, rec("a.ts", "two\n"), ...filler.slice(0, 10)].join("\n") + "\n");
    expect(await ledgerNewestPostHash(file, "a.ts")).toBe(fileHash("two\n"));
    expect(await ledgerNewestPostHash(file, "other/0.ts")).toBe(fileHash("x0\n"));
    expect(await ledgerNewestPostHash(file, "missing.ts")).toBeUndefined();
    expect(await ledgerNewestPostHash(join(dir, "nope.jsonl"), "a.ts")).toBeUndefined();
  });
});
