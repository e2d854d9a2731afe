import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCliInProcess } from "../support/cliRunner";
import { TempWorkspace } from "../support/workspace";
import { parseBlameRow, type BlameRow, type Seen } from "./answers";
import { AgentDriver, run, type AgentIdentity } from "./agentDriver";
import { EditorDriver } from "./editorDriver";
import type { Actor } from "./generator";
import { LedgerWatch } from "./ledger";

/**
 * The world a run happens in: a temporary workspace whose intents all own `src/**`, the person in the
 * editor working under INT-101 (workspace selection), and three Claude Code agents, each in its own session
 * under its own intent, with its own model.
 */

export const LEDGER = ".orchestration/agent_trace.jsonl";

const INTENTS = `# written by the attribution oracle (test/oracle)
active_intents:
  - id: INT-101
    name: Feature work in the editor
    status: IN_PROGRESS
    owned_scope: ["src/**"]
  - id: INT-102
    name: Agent refactoring
    status: IN_PROGRESS
    owned_scope: ["src/**"]
  - id: INT-103
    name: Agent hardening
    status: IN_PROGRESS
    owned_scope: ["src/**"]
`;

export interface Contributor {
  actor: Actor;
  /** For agents: how Claude Code identifies itself to the hook. */
  agent?: AgentIdentity;
}

export const HUMAN: Contributor = { actor: { name: "human", door: "editor", owner: { type: "human", intentId: "INT-101" } } };
/** An in-editor assistant: the editor's `contributor` setting names the model; saves count under the editor's intent. */
export const COPILOT: Contributor = {
  actor: { name: "copilot", door: "editor", owner: { type: "ai", modelId: "github-copilot/gpt-4.1", intentId: "INT-101" } },
};
export const SONNET: Contributor = {
  actor: { name: "sonnet", door: "hook", owner: { type: "ai", modelId: "anthropic/claude-sonnet-4-5", intentId: "INT-102" } },
  agent: { name: "sonnet", sessionId: "5a0f7c2e-1111-4c7e-9a41-2f6d8e9b1c30", model: { source: "transcript", name: "claude-sonnet-4-5" } },
};
export const OPUS: Contributor = {
  actor: { name: "opus", door: "hook", owner: { type: "ai", modelId: "anthropic/claude-opus-4-1", intentId: "INT-103" } },
  agent: { name: "opus", sessionId: "5a0f7c2e-2222-4c7e-9a41-2f6d8e9b1c30", model: { source: "transcript", name: "claude-opus-4-1" } },
};
/** Model from INTENT_LSP_MODEL (no model in the transcript). */
export const GPT: Contributor = {
  actor: { name: "gpt", door: "hook", owner: { type: "ai", modelId: "openai/gpt-5", intentId: "INT-102" } },
  agent: { name: "gpt", sessionId: "5a0f7c2e-3333-4c7e-9a41-2f6d8e9b1c30", model: { source: "env", name: "gpt-5" } },
};
export const CONTRIBUTORS: readonly Contributor[] = [HUMAN, COPILOT, SONNET, OPUS, GPT];
/** A Codex agent (model from its payload), under INT-103: moves files with apply_patch's `*** Move to:` (fileOps.ts). */
export const CODEX: Contributor = {
  actor: { name: "codex", door: "hook", owner: { type: "ai", modelId: "openai/gpt-5-codex", intentId: "INT-103" } },
  agent: { name: "codex", sessionId: "019a0c2e-4444-7c7e-9a41-2f6d8e9b1c30", model: { source: "env", name: "gpt-5-codex" } },
};

export function contributorOf(actor: Actor): Contributor {
  const c = [...CONTRIBUTORS, CODEX].find((x) => x.actor.name === actor.name);
  if (!c) throw new Error(`oracle: unknown actor ${actor.name}`);
  return c;
}

export class World {
  /** main, checked out apart: a teammate's commits land there while the world works on its branch. */
  private teammate: { root: string; agents: AgentDriver; commits: number } | undefined;

  private constructor(
    readonly ws: TempWorkspace,
    readonly transcripts: string,
    readonly editor: EditorDriver,
    readonly agents: AgentDriver,
    readonly ledger: LedgerWatch,
  ) {}

  static async create(): Promise<World> {
    const ws = new TempWorkspace({ fromExample: false });
    ws.write(".orchestration/active_intents.yaml", INTENTS);
    ws.write(LEDGER, "");
    ws.write("README.md", "A workspace made by the attribution oracle.\n");
    ws.select("INT-101");
    // a repository as `intent init` leaves it (the ledger merges with merge=union), on a branch off main
    ws.write(".gitattributes", ".orchestration/agent_trace.jsonl merge=union\n");
    ws.write(".gitignore", ".orchestration/.sessions/\n.orchestration/*.lock\n.orchestration/.cache/\n");
    await git(ws.root, "init", "-q", "-b", "main");
    await git(ws.root, "add", "-A");
    await git(ws.root, "commit", "-q", "-m", "the oracle's workspace");
    await git(ws.root, "checkout", "-q", "-b", "work");
    const transcripts = mkdtempSync(join(tmpdir(), "intent-lsp-oracle-transcripts-"));
    const agents = new AgentDriver(ws.root, transcripts);
    for (const c of CONTRIBUTORS) if (c.agent) await agents.setup(c.agent, c.actor.owner.intentId);
    await agents.setupCodex(CODEX.agent!, CODEX.actor.owner.intentId);
    const editor = await EditorDriver.start(ws.root, ws.path(LEDGER));
    return new World(ws, transcripts, editor, agents, new LedgerWatch(ws.path(LEDGER)));
  }

  async git(...args: string[]): Promise<string> {
    return git(this.ws.root, ...args);
  }

  /** git with `input` on its standard input (`cat-file --batch-check`). */
  async gitWithInput(input: string, ...args: string[]): Promise<string> {
    return gitIn(this.ws.root, input, args);
  }

  /** Commits everything on the world's branch (a person's "commit all"), if anything changed. */
  async commitAll(message: string): Promise<void> {
    await this.git("add", "-A");
    if ((await this.git("status", "--porcelain")).trim()) await this.git("commit", "-q", "-m", message);
  }

  /**
   * A teammate's commit on main: their agent writes a new file through its hook in main's own checkout, and
   * they commit it with the record it appended. The world's branch then has to take main in (rebase, merge).
   */
  async teammateCommits(agent: Contributor): Promise<void> {
    if (!this.teammate) {
      const root = mkdtempSync(join(tmpdir(), "intent-lsp-oracle-main-"));
      rmSync(root, { recursive: true, force: true });
      await this.git("worktree", "add", "-q", root, "main");
      const agents = new AgentDriver(root, this.transcripts);
      for (const c of CONTRIBUTORS) if (c.agent) await agents.setup(c.agent, c.actor.owner.intentId);
      this.teammate = { root, agents, commits: 0 };
    }
    const t = this.teammate;
    const path = `src/notes/note-${++t.commits}.ts`;
    await t.agents.write(agent.agent!, path, "", `export const NOTE_${t.commits} = "from main";\nexport const SEEN_${t.commits} = true;\n`, {
      preferEdit: false,
      created: true,
    });
    await git(t.root, "add", "-A");
    await git(t.root, "commit", "-q", "-m", `note ${t.commits}`);
  }

  /** The world's branch rebased onto main (main's commits first, the branch's replayed on them). */
  async rebase(): Promise<void> {
    await this.git("rebase", "-q", "main");
  }

  /** The world's branch squash-merged into main, and work going on from there. */
  async squashMerge(): Promise<void> {
    await this.git("merge", "-q", "--no-edit", "main");
    await this.git("reset", "-q", "--soft", "main");
    await this.git("commit", "-q", "-m", "squashed");
    await git(this.teammate!.root, "merge", "-q", "--ff-only", "work");
  }

  /** `intent blame --json PATH`, run in the workspace as a user would (in this process): what the ledger says of the file on disk. */
  async blame(path: string): Promise<Seen[]> {
    const r = await runCliInProcess(["blame", "--json", path], { cwd: this.ws.root });
    if (r.status !== 0) throw new Error(`oracle: intent blame --json ${path} exited ${r.status}: ${r.stderr}`);
    const rows = (JSON.parse(r.stdout) as { lines: BlameRow[] }).lines;
    return rows.map(parseBlameRow);
  }

  async dispose(): Promise<void> {
    await this.editor.stop().catch(() => undefined);
    // a workspace to look into after a run (its path printed): INTENT_ORACLE_KEEP=1
    if (process.env["INTENT_ORACLE_KEEP"]) {
      // what the server logged, to read beside the workspace
      writeFileSync(join(this.ws.root, "server.log"), this.editor.client.logs.join("\n"));
      console.error(`oracle: workspace kept at ${this.ws.root}`);
      return;
    }
    if (this.teammate) rmSync(this.teammate.root, { recursive: true, force: true });
    this.ws.dispose();
    rmSync(this.transcripts, { recursive: true, force: true });
  }
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "Oracle Person",
  GIT_AUTHOR_EMAIL: "person@oracle.test",
  GIT_COMMITTER_NAME: "Oracle Person",
  GIT_COMMITTER_EMAIL: "person@oracle.test",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

async function git(cwd: string, ...args: string[]): Promise<string> {
  return gitIn(cwd, "", args);
}

async function gitIn(cwd: string, input: string, args: readonly string[]): Promise<string> {
  const r = await run("git", ["-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", ...args], { cwd, env: GIT_ENV, input });
  if (r.status !== 0) throw new Error(`oracle: git ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}
