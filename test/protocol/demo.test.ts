import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPO_ROOT } from "../support/lspClient";

it("`npm start`'s demo runs to the end and shows the user journey", () => {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, "dist/demo.js")], { encoding: "utf8", timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toContain("  docs/notes.md:10:1-10:40 error [out-of-scope]");
  expect(r.stdout).toContain("  docs/notes.md:15:1-15:40 error [out-of-scope]");
  expect(r.stdout).toContain("  ★ Select INT-003 — Docs refresh");
  expect(r.stdout).toContain('"permissionDecision": "deny"');
  expect(r.stdout).toMatch(/ok: \d+ records, 0 problems/);
});
