import { runDoctor } from "../io/setup/doctor";
import { parse, ROOT_OPTION, type Command } from "./args";
import { openWorkspace } from "./workspace";

const USAGE = `intent doctor [--root DIR]

Checks the setup and prints each check as ok, warning or problem, with the fix for each warning and problem:
the intents file and config.jsonc valid (a warning when no intent is declared), the ledger verifying, .gitattributes and .gitignore entries,
the adoption point \`intent init\` recorded (a warning when it cannot be read),
intent-lsp on PATH, every configured agent hook answering a harmless read-only call, and lock directories
left behind by a writer that was killed. Exit code 1 when there is a problem.`;

export const doctorCommand: Command = {
  usage: USAGE,
  options: ROOT_OPTION,
  async run(argv, io) {
    const { values } = parse("doctor", argv, ROOT_OPTION);
    const ws = openWorkspace(io, values.root);
    const checks = await runDoctor({ root: ws.root, rules: ws.rules, texts: ws.texts, env: io.env, runProgram: io.runProgram });
    const lines: string[] = [];
    for (const c of checks) {
      lines.push(`${!c.ok ? "problem" : c.warning ? "warning" : "ok     "}  ${c.name}: ${c.detail}`);
      if ((!c.ok || c.warning) && c.fix) lines.push(`         fix: ${c.fix}`);
    }
    const problems = checks.filter((c) => !c.ok).length;
    const warnings = checks.filter((c) => c.ok && c.warning).length;
    const warned = warnings ? `, ${warnings} warning${warnings === 1 ? "" : "s"}` : "";
    lines.push(
      problems ? `${problems} problem${problems === 1 ? "" : "s"}${warned} in ${ws.root}.` : `All ${checks.length} checks passed${warned} in ${ws.root}.`,
    );
    io.out(`${lines.join("\n")}\n`);
    return problems ? 1 : 0;
  },
};
