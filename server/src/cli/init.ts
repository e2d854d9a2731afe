import { detectAgents, hookCommand, hookScript, hookSpec, HOOK_SPECS, mergeHookConfig, type AgentName } from "../io/setup/agentHooks";
import { appendLines, EXAMPLE_INTENTS, GITATTRIBUTES_LINES, GITIGNORE_LINES, missingLines } from "../io/setup/repoFiles";
import { defaultSettings } from "@shared/settings";
import { adoptionText } from "../engine/adoption";
import { ADOPTION_FILE, INTENTS_FILE } from "../engine/workspaceFiles";
import { adoptionPoint } from "../io/adoption";
import { readOwnFile, writeOwnFile } from "../io/ownFiles";
import { resolveWorkspaceRoot } from "../io/workspaceRoot";
import { configureSealedFetch, SEALED_REF } from "../io/ledger/sealedRef";
import { CliError, parse, ROOT_OPTION, type Command, type Options } from "./args";

/** Why one more fetch refspec would change what a plain `git fetch` or `git pull` from origin does. */
const LEFT_BECAUSE: Record<"no fetch refspec" | "mirror" | "no stored refspec", string> = {
  "no fetch refspec": "it has no fetch refspec, so `git pull origin` merges origin's HEAD",
  mirror: "it is a mirror",
  "no stored refspec": "its refspecs store no ref, so a fetch follows no tags",
};

const AGENTS = HOOK_SPECS.map((s) => s.agent).join(", ");

const USAGE = `intent init [--agent NAME]... [--root DIR]

Sets the repository up in one step, changing only what is missing:
  - .orchestration/active_intents.yaml with a commented example (only if there is none)
  - .gitattributes: the ledger and its sealed manifest merge with merge=union
  - .gitignore: .orchestration/.sessions/, .orchestration/*.lock, .orchestration/.cache/
  - .orchestration/adoption.json: the adoption point, the commit whose code predates the ledger (HEAD; or,
    when the ledger is already committed, the commit before the one that added it). Lines no record explains
    that are as they were there count as "before adoption" in blame, hover, stats and the report
  - git's fetch from origin also brings the sealed ledger (refs/intent/ledger), when one more fetch refspec
    changes nothing else a plain \`git fetch\` or \`git pull\` does (else \`intent ledger fetch\` brings it)
  - for each agent found in the repository (.claude/, .cursor/, .codex/, …) or named with --agent, its hook
    configuration merged into its existing file: every entry already there is kept

  --agent NAME   set up this agent too (repeatable): ${AGENTS}

Run it again at any time: a second run changes nothing. Then run \`intent doctor\`.`;

const OPTIONS = { ...ROOT_OPTION, agent: { type: "string", multiple: true } } as const satisfies Options;

export const initCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv, io) {
    const { values } = parse("init", argv, OPTIONS);
    const named = values.agent ?? [];
    for (const a of named) if (!hookSpec(a)) throw new CliError(`unknown agent "${a}"; use one of ${AGENTS}`, 2);
    let root: string;
    try {
      root = resolveWorkspaceRoot(values.root, io.cwd, io.cwd)?.root ?? io.cwd;
    } catch (e) {
      throw new CliError((e as Error).message, 2);
    }

    const done: string[] = [];
    /** What init left as it is on purpose, and how to do it by hand: said on every run. */
    const notes: string[] = [];
    const problems: string[] = [];
    // Each file is read and written only where it really lands inside the workspace (ownFiles): a
    // committed link (`.gitignore` → ~/.bashrc, `.claude` → another folder) is reported and left alone.
    const step = (what: () => void) => {
      try {
        what();
      } catch (e) {
        problems.push((e as Error).message);
      }
    };
    const files: Files = {
      read: (rel) => readOwnFile(root, rel),
      write: (rel, text, mode) => writeOwnFile(root, rel, text, mode === undefined ? {} : { mode }),
    };

    step(() => {
      if (files.read(INTENTS_FILE) !== undefined) return;
      files.write(INTENTS_FILE, EXAMPLE_INTENTS);
      done.push(`created ${INTENTS_FILE} (a commented example: declare your intents there)`);
    });
    for (const [file, lines] of [
      [".gitattributes", GITATTRIBUTES_LINES],
      [".gitignore", GITIGNORE_LINES],
    ] as const) {
      step(() => {
        const text = files.read(file);
        const missing = missingLines(text, lines);
        if (!missing.length) return;
        files.write(file, appendLines(text, missing));
        done.push(`${text === undefined ? "created" : "updated"} ${file}: ${missing.join(", ")}`);
      });
    }

    step(() => {
      if (files.read(ADOPTION_FILE) !== undefined) return;
      const point = adoptionPoint(root, defaultSettings.ledgerPath);
      if (!point) return;
      files.write(ADOPTION_FILE, adoptionText({ commit: point.commit, date: new Date().toISOString() }));
      done.push(
        `recorded the adoption point in ${ADOPTION_FILE}: commit ${point.commit.slice(0, 12)} (${point.why}); lines no record explains that are as they were there count as "before adoption", not untraced`,
      );
    });

    step(() => {
      const plan = configureSealedFetch(root);
      if (plan.kind === "add") done.push(`configured git: a fetch from origin also brings the sealed ledger (${SEALED_REF})`);
      else if (plan.kind === "leave")
        notes.push(`left git's fetch from origin as it is (${LEFT_BECAUSE[plan.why]}): \`intent ledger fetch\` brings the sealed ledger (${SEALED_REF})`);
    });

    const agents = [...new Set<AgentName>([...detectAgents(root), ...(named as AgentName[])])];
    for (const agent of agents) setUpAgent(agent, files, done, problems);

    if (!agents.length) done.push(`no agent found in ${root}; add one with --agent NAME (${AGENTS})`);
    io.out(`${done.length ? done.join("\n") : `Nothing to change: ${root} is set up.`}\n`);
    for (const n of notes) io.out(`${n}\n`);
    for (const p of problems) io.err(`intent init: ${p}\n`);
    if (!problems.length) io.out("Next: `intent doctor` checks the setup (hooks answering, intents valid, ledger verifying).\n");
    return problems.length ? 1 : 0;
  },
};

/** The workspace's files as init reads and writes them: checked, inside the workspace only. */
interface Files {
  read(rel: string): string | undefined;
  write(rel: string, text: string, mode?: number): void;
}

function setUpAgent(agent: AgentName, files: Files, done: string[], problems: string[]): void {
  try {
    setUpAgentFiles(agent, files, done, problems);
  } catch (e) {
    problems.push(`${agent}: ${(e as Error).message}`);
  }
}

function setUpAgentFiles(agent: AgentName, files: Files, done: string[], problems: string[]): void {
  const spec = hookSpec(agent)!;
  if (spec.kind === "scripts") {
    for (const file of spec.files) {
      const existing = files.read(file);
      if (existing === undefined) {
        files.write(file, hookScript(agent), 0o755);
        done.push(`created ${file} (${agent} hook)`);
      } else if (!existing.includes(hookCommand(agent))) {
        problems.push(
          `${file} exists and does not run \`${hookCommand(agent)}\`; it was left as it is. Add a line \`${hookCommand(agent)}\` to it (its standard input is the event), or merge the two scripts`,
        );
      }
    }
    return;
  }
  if (spec.kind === "plugin") {
    const existing = files.read(spec.file);
    if (existing === undefined) {
      files.write(spec.file, spec.text);
      done.push(`created ${spec.file} (${agent} plugin running \`${hookCommand(agent)}\`)`);
    } else if (existing !== spec.text) {
      problems.push(
        `${spec.file} exists and is not the plugin this version of intent-lsp writes; it was left as it is. Remove it and run \`intent init --agent ${agent}\` again to write the current one`,
      );
    }
    return;
  }
  for (const [file, text] of Object.entries(spec.companions ?? {})) {
    if (files.read(file) !== undefined) continue;
    files.write(file, text);
    done.push(`created ${file} (${agent} setup)`);
  }
  const existing = files.read(spec.file);
  const merged = mergeHookConfig(spec, existing);
  if (!merged.ok) {
    problems.push(`${merged.problem}; it was left as it is. Fix it, then run \`intent init\` again`);
    return;
  }
  if (merged.text === existing) return;
  files.write(spec.file, merged.text);
  const what = [
    ...(merged.added.length ? [`${agent} hooks for ${merged.added.join(", ")}`] : []),
    ...(merged.matched.length ? [`the tools ${agent}'s ${merged.matched.join(" and ")} hooks reach brought up to date`] : []),
  ];
  done.push(`${existing === undefined ? "created" : "updated"} ${spec.file}: ${what.join("; ")}`);
}
