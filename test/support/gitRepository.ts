import { spawnSync } from "node:child_process";
import { TempWorkspace } from "./workspace";

/** Git with a fixed identity and no signing, and a committed copy of the example workspace. */

export function git(cwd: string, ...args: string[]): string {
  const r = spawnSync(
    "git",
    ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", ...args],
    { cwd, encoding: "utf8" },
  );
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
}

/**
 * A temp copy of examples/workspace with no ledger (tests plant exactly the records they need), committed as
 * the first commit of a fresh repository on branch main.
 */
export function gitWorkspace(): TempWorkspace {
  const ws = new TempWorkspace();
  ws.write(".orchestration/agent_trace.jsonl", "");
  git(ws.root, "init", "-q");
  git(ws.root, "add", "-A");
  git(ws.root, "commit", "-q", "-m", "initial");
  return ws;
}
