// What every real-editor test shares: the built server and CLI it drives, the example workspace it opens,
// and the scratch folder of one run (its processes ended after the test, its files kept when it failed).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach } from "vitest";
import { endRun, repoRoot } from "./editors";

// INTENT_LSP_SERVER_JS lets the drivers be pointed at another build of the server.
export const SERVER_JS = process.env.INTENT_LSP_SERVER_JS ?? path.join(repoRoot, "dist", "server.js");
export const CLI_JS = path.join(repoRoot, "dist", "cli.js");
export const LEDGER = ".orchestration/agent_trace.jsonl";
/** A first install is the slow part (7-14 s here, minutes on a slow mirror). */
export const INSTALL_MS = 300_000;

/** The intents of the editor tests: INT-001 owns src/api/**, INT-003 docs/**, INT-004 (when asked) the onboarding docs. */
export function intentsYaml(constraints: string[], onboarding: boolean): string {
  return `active_intents:
  - id: INT-001
    name: Build Weather API
    status: IN_PROGRESS
    owned_scope: ["src/api/**"]
    constraints: [${constraints.map((c) => JSON.stringify(c)).join(", ")}]
  - id: INT-003
    name: Docs refresh
    status: IN_PROGRESS
    owned_scope: ["docs/**"]
${
  onboarding
    ? `  - id: INT-004
    name: Onboarding guide
    status: PENDING
    owned_scope: ["docs/guide/**", "docs/notes.md"]
`
    : ""
}`;
}

/** A workspace at `root`: the intents, `selected` as the workspace's selection, and `files` (path → lines). */
export function writeWorkspace(root: string, intents: string, selected: string, files: Record<string, string[]>): void {
  mkdirSync(path.join(root, ".orchestration", ".sessions"), { recursive: true });
  writeFileSync(path.join(root, ".orchestration", "active_intents.yaml"), intents);
  writeFileSync(path.join(root, ".orchestration", ".sessions", "workspace.json"), `${JSON.stringify({ intent: selected })}\n`);
  for (const [file, lines] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, ...file.split("/")), `${lines.join("\n")}\n`);
  }
}

/** A copy of examples/workspace (its intents, ledger and files) as `<tmp>/workspace`; its path. */
export function copyExampleWorkspace(tmp: string): string {
  const ws = path.join(tmp, "workspace");
  cpSync(path.join(repoRoot, "examples", "workspace"), ws, { recursive: true });
  return ws;
}

/** The workspace's ledger file as text, or a placeholder a failure message can show. */
export function ledgerText(ws: string): string {
  const file = path.join(ws, ...LEDGER.split("/"));
  return existsSync(file) ? readFileSync(file, "utf8") : "<none>";
}

/** Commits everything in `root` as one commit: a repository as the editor finds it. */
export function commitAll(root: string, name: string, email: string): void {
  execFileSync("git", ["init", "-q", root], { stdio: "pipe" });
  execFileSync("git", ["-C", root, "add", "-A"], { stdio: "pipe" });
  execFileSync("git", ["-C", root, "-c", `user.name=${name}`, "-c", `user.email=${email}`, "commit", "-q", "-m", "workspace"], { stdio: "pipe" });
}

/**
 * The scratch folder of each test's run. `start()` makes it (after checking the server is built); after each
 * test `before` runs (ending what the test's own harness started), then whatever still runs under the folder's
 * tag is ended and the folder removed, unless the test did not reach `passed()`; then `after` (removing what
 * the test made outside the folder).
 */
export class EditorRun {
  dir: string | undefined;
  private ok = false;

  constructor(
    private readonly label: string,
    before?: () => Promise<void> | void,
    after?: () => void,
  ) {
    afterEach(async () => {
      await before?.();
      endRun(this.label, this.dir, !this.ok);
      after?.();
      this.dir = undefined;
      this.ok = false;
    });
  }

  /** A fresh scratch folder; `server` false for a run that does not start intent-lsp. */
  start(server = true): string {
    if (server && !existsSync(SERVER_JS)) throw new Error(`${SERVER_JS} is missing: run \`npm run build\` (npm run test:e2e builds first)`);
    // on the disk: a failed run's folder stays after the test run's memory folder is gone (test/support/memoryTmpdir.ts)
    this.dir = mkdtempSync(path.join(process.env["INTENT_LSP_DISK_TMPDIR"] ?? tmpdir(), `intent-lsp-${this.label}-`));
    return this.dir;
  }

  passed(): void {
    this.ok = true;
  }
}
