import { spawnSync } from "node:child_process";
import { cpSync, rmSync } from "node:fs";
import { TempWorkspace } from "./workspace";

/** Git with a fixed identity and no signing, and a committed copy of the example workspace. */

export function git(cwd: string, ...args: string[]): string {
  return gitAt(cwd, undefined, ...args);
}

/** `git` with the author and committer dates set to `date` (ISO 8601) when given: a commit made at that time. */
export function gitAt(cwd: string, date: string | undefined, ...args: string[]): string {
  const env = { ...process.env, ...(date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {}) };
  const r = spawnSync(
    "git",
    ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", ...args],
    { cwd, encoding: "utf8", env },
  );
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
}

/**
 * A temp copy of examples/workspace with no ledger (tests plant exactly the records they need), committed as
 * the first commit of a fresh repository on branch main.
 */
export function gitWorkspace(): TempWorkspace {
  const ws = new TempWorkspace({ fromExample: false });
  cpSync(committedTemplate(), ws.root, { recursive: true });
  return ws;
}

let template: TempWorkspace | undefined;

/** The committed workspace, made once per test process and copied per test: git's set-up is not the subject. */
function committedTemplate(): string {
  if (!template) {
    const made = new TempWorkspace();
    made.write(".orchestration/agent_trace.jsonl", "");
    git(made.root, "init", "-q");
    git(made.root, "add", "-A");
    git(made.root, "commit", "-q", "-m", "initial");
    template = made;
    process.once("exit", () => rmSync(made.root, { recursive: true, force: true }));
  }
  return template.root;
}
