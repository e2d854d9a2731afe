import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { spawnHook } from "../support/hookServiceHarness";
import { vscodePayload } from "../support/hookPayloads";
import { ledgerRecords } from "../support/ledgerFile";
import { TempWorkspace } from "../support/workspace";

/**
 * VS Code runs the hooks of `.claude/settings.json` and of `.github/hooks/` alike, so one write of its agent
 * starts two post hooks at once (`intent hook claude-code`, `intent hook copilot`). Each checks whether the
 * change is recorded, then appends: the ledger must still hold one record of the write
 * (test/unit/ledger-append.test.ts holds the check under the lock to one writer deterministically).
 */

beforeAll(ensureBuilt);

describe("two post hooks of one write at once", () => {
  let ws: TempWorkspace;
  afterEach(() => ws?.dispose());

  it("leave one record of the write, in their own processes and through the service", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    for (const service of ["off", "on"]) {
      const env = { INTENT_LSP_HOOK_SERVICE: service };
      for (let i = 0; i < 6; i++) {
        const path = `src/api/concurrent-${service}-${i}.ts`;
        const input = { filePath: ws.path(path), content: `export const v = ${i};\n` };
        const hooks = (event: string) =>
          Promise.all(
            ["claude-code", "copilot"].map((agent) => spawnHook(agent as "claude-code", vscodePayload(ws, "create_file", input, event), { cwd: ws.root, env })),
          );
        for (const r of await hooks("PreToolUse")) expect(r.status, r.stderr).toBe(0);
        ws.write(path, input.content);
        for (const r of await hooks("PostToolUse")) expect(r.status, r.stderr).toBe(0);
        const records = ledgerRecords(ws).filter((rec) => (rec["files"] as { path: string }[]).some((f) => f.path === path));
        expect(records, `${path}, service ${service}`).toHaveLength(1);
      }
    }
  });
});
