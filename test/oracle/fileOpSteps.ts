import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { ArrivalOrder } from "./arrivalOrders";
import type { Step } from "./generator";
import type { FileOp } from "./fileOps";
import { applySplices, fileText, type TruthLine } from "./truth";
import { contributorOf, CONTRIBUTORS, type World } from "./setup";

/**
 * Carrying out a file-level step (fileOps.ts) through the door its kind names: git in a terminal, the
 * editor's file operations, an agent's shell or move tool, the editor's cut/copy and paste between two
 * open files; its events in the step's arrival order. Every step ends with the files saved and a renamed
 * file open in the editor under its new path (so that its hover is compared with `intent blame`).
 */
export async function carryOutFileOp(
  world: World,
  step: Step,
  order: ArrivalOrder,
  paths: readonly string[],
  lines: readonly TruthLine[],
  linesOf: (path: string) => readonly TruthLine[],
): Promise<void> {
  const { editor } = world;
  const op = step.op!;
  const o = step.actor.owner;
  if (step.actor.door === "editor") await editor.setContributor(o.type === "ai" ? { type: "ai", modelId: o.modelId! } : { type: "human" });
  switch (op.kind) {
    case "rename":
      return rename(world, step, op.from, order, lines);
    case "block": {
      if (step.actor.door !== "editor") return agentBlockMove(world, step, op, linesOf);
      if (!editor.isOpen(op.from)) await editor.open(op.from);
      if (!editor.isOpen(step.path)) await editor.open(step.path);
      if (op.cut) await editor.edit(op.from, [{ at: op.start, remove: op.length, insert: [] }], step.editor);
      await editor.edit(step.path, step.splices, step.editor);
      if (op.cut && op.cutSavedFirst) await editor.save(op.from);
      await editor.save(step.path);
      if (op.cut && !op.cutSavedFirst) await editor.save(op.from);
      return;
    }
    case "refactor":
      return agentRefactor(world, step, op, linesOf);
    case "history": {
      const teammate = CONTRIBUTORS.find((c) => c.agent && c.actor.name === "opus")!;
      await world.commitAll("work");
      await world.teammateCommits(teammate);
      if (op.how === "rebase") await world.rebase();
      else await world.squashMerge();
      const watched = async () => {
        for (const p of paths) await editor.watched(p);
      };
      if (order === "watcher-move-record") await watched();
      await editor.barrier();
      if (order === "move-record-watcher") await watched();
      return;
    }
  }
}

/**
 * An agent's cut and paste between files: two tool calls of one session, an Edit removing the block from one
 * file and an Edit (or Write) adding it to the other, the cut or the paste first. An open file is reloaded
 * after each write; the destination ends open, so that its hover is compared with `intent blame`.
 */
async function agentBlockMove(
  world: World,
  step: Step,
  op: Extract<FileOp, { kind: "block" }>,
  linesOf: (path: string) => readonly TruthLine[],
): Promise<void> {
  const { editor, agents } = world;
  const agent = contributorOf(step.actor).agent!;
  const source = linesOf(op.from);
  const dest = linesOf(step.path);
  const cut = () => write(op.from, fileText(source), fileText(applySplices(source, [{ at: op.start, remove: op.length, insert: [] }])));
  const paste = () => write(step.path, fileText(dest), fileText(applySplices(dest, step.splices)));
  const write = async (path: string, before: string, after: string) => {
    await agents.write(agent, path, before, after, { preferEdit: true });
    if (editor.isOpen(path)) await editor.reload(path, "region");
  };
  if (op.cutSavedFirst) {
    await cut();
    await paste();
  } else {
    await paste();
    await cut();
  }
  if (!editor.isOpen(step.path)) await editor.open(step.path);
  await editor.barrier();
}

/**
 * An agent's refactor (fileOps.ts `REFACTOR_KINDS`): the cut from one file and the paste into another (a new
 * module, or the file a merge folds it into) as two tool calls in the drawn order, of one session or of two
 * (the agent restarted between them), or as one
 * shell command writing both; then the person's commit of the result, in one commit, in two (the pasted file
 * first), or none. Open files are reloaded after each write; the destination ends open, so that its hover is
 * compared with `intent blame`.
 */
async function agentRefactor(
  world: World,
  step: Step,
  op: Extract<FileOp, { kind: "refactor" }>,
  linesOf: (path: string) => readonly TruthLine[] | undefined,
): Promise<void> {
  const { editor, agents } = world;
  const agent = contributorOf(step.actor).agent!;
  const source = linesOf(op.from)!;
  const dest = linesOf(step.path) ?? [];
  const cutText = fileText(applySplices(source, [{ at: op.start, remove: op.length, insert: op.left }]));
  const pasteText = fileText(applySplices(dest, step.splices));
  const reload = async (path: string) => {
    if (editor.isOpen(path)) await editor.reload(path, "region");
  };
  if (op.tool === "shell") {
    // `cat >>` of the moved lines, or the new module written whole, and the old file rewritten without them
    const put = (text: string) => `printf '%s' '${Buffer.from(text).toString("base64")}' | base64 -d`;
    const moved = fileText(step.splices[0]!.insert);
    const paste = op.newFile ? `mkdir -p ${dirname(step.path)} && ${put(pasteText)} > ${step.path}` : `${put(moved)} >> ${step.path}`;
    const cut = `${put(cutText)} > ${op.from}`;
    await agents.shell(agent, op.cutFirst ? `${cut} && ${paste}` : `${paste} && ${cut}`);
    await reload(op.from);
    await reload(step.path);
  } else {
    const write = async (path: string, before: string, after: string, created: boolean) => {
      await agents.write(agent, path, before, after, { preferEdit: op.tool === "edit", created });
      await reload(path);
    };
    const cut = () => write(op.from, fileText(source), cutText, false);
    const paste = () => write(step.path, fileText(dest), pasteText, op.newFile);
    // the second call in a new session of the same agent (its first session ended or not)
    const between = () => (op.sessions === "one" ? undefined : agents.restart(agent, step.actor.owner.intentId, op.sessions === "two-ended"));
    if (op.cutFirst) {
      await cut();
      await between();
      await paste();
    } else {
      await paste();
      await between();
      await cut();
    }
  }
  if (op.commit === "apart") {
    await world.git("add", "--", step.path);
    await world.git("commit", "-q", "-m", `add ${step.path}`);
  }
  if (op.commit !== "none") await world.commitAll(`refactor ${op.from}`);
  if (!editor.isOpen(step.path)) await editor.open(step.path);
  await editor.barrier();
}

async function rename(world: World, step: Step, from: string, order: ArrivalOrder, lines: readonly TruthLine[]): Promise<void> {
  const { editor, agents } = world;
  const to = step.path;
  const agent = contributorOf(step.actor).agent;
  // what a client's file watcher reports of a move: the old path deleted, the new one created
  const watched = async () => {
    await editor.watched(from, 3);
    await editor.watched(to, 1);
  };
  const afterMove = async () => {
    if (order === "watcher-move-record") await watched();
    if (order === "open-before-record") await editor.open(to);
  };
  const how = (step.op as { how: string }).how;
  // a file gone from disk: the person closes its tab (the editor's own rename reopens it under the new name)
  if (how !== "editor" && editor.isOpen(from)) await editor.close(from);
  switch (how) {
    case "git":
      // the person commits what is there and renames with git; the rename and an edit are committed together
      await world.commitAll("work");
      mkdirSync(world.ws.path(dirname(to)), { recursive: true }); // git mv does not make the destination's folder
      await world.git("mv", from, to);
      await afterMove();
      break;
    case "editor":
      await editor.rename(from, to, afterMove);
      break;
    case "shell-mv":
      await agents.shell(agent!, `mkdir -p ${dirname(to)} && mv ${from} ${to}`, afterMove);
      break;
    case "shell-git-mv":
      await world.commitAll("work");
      await agents.shell(agent!, `mkdir -p ${dirname(to)} && git mv ${from} ${to}`, afterMove);
      break;
    case "mcp":
      await agents.moveFile(agent!, from, to, afterMove);
      break;
    case "codex": {
      const s = step.splices[0];
      const old = s ? world.ws.read(from).split(/\r?\n/)[s.at]! : undefined;
      const after = fileText(applySplices(lines, step.splices));
      await agents.codexMove(agent!, from, to, after, { old: old!, new: s!.insert[0]!.text }, afterMove);
      break;
    }
  }
  if (order === "move-record-watcher") await watched();
  if (!editor.isOpen(to)) await editor.open(to);
  if (step.splices.length && how === "git") {
    await editor.edit(to, step.splices, step.editor);
    await editor.save(to);
  }
  if (how === "git") await world.commitAll("rename");
  await editor.barrier();
}
