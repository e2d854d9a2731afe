import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach } from "vitest";
import { REPO_ROOT, type LspClient } from "./lspClient";

export const EXAMPLE_WORKSPACE = join(REPO_ROOT, "examples/workspace");

/** A throwaway copy of the example workspace (or an empty folder), removed by `dispose`. */
export class TempWorkspace {
  readonly root: string;

  /** `withLedger: false` drops the example's ledger, for tests that build their own history. */
  constructor(opts: { fromExample?: boolean; withLedger?: boolean } = {}) {
    this.root = mkdtempSync(join(tmpdir(), "intent-lsp-test-"));
    if (opts.fromExample ?? true) cpSync(EXAMPLE_WORKSPACE, this.root, { recursive: true });
    if (opts.withLedger === false) rmSync(this.path(".orchestration/agent_trace.jsonl"), { force: true });
  }

  path(rel: string): string {
    return join(this.root, rel);
  }

  read(rel: string): string {
    return readFileSync(this.path(rel), "utf8");
  }

  write(rel: string, text: string): void {
    mkdirSync(dirname(this.path(rel)), { recursive: true });
    writeFileSync(this.path(rel), text);
  }

  select(intent: string | null): void {
    this.write(".orchestration/.sessions/workspace.json", JSON.stringify({ intent, selectedAt: new Date().toISOString(), by: "test" }));
  }

  dispose(): void {
    // a server that was just told to exit may still be removing its session file, and a hook service saves the
    // ledger's index into .orchestration/.cache 2 s after its last call: retry a folder that filled again, for
    // longer than that (the retries wait 0.1 s, 0.2 s, … 1 s: 5.5 s in all)
    rmSync(this.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

/**
 * The clean-up every protocol test shares: after each test, the client it started is stopped and its
 * workspace removed. `current` reads the test file's own variables, which a test may not have set.
 */
export function stopAfterEach(current: () => { client?: LspClient; ws?: TempWorkspace }): void {
  afterEach(async () => {
    const { client, ws } = current();
    await client?.stop();
    ws?.dispose();
  });
}
