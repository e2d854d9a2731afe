/*
 * What a tool that runs something is given, as the shell policy reads it (engine/agent/shellPolicy.ts): its
 * program and arguments under whatever keys, every string it holds, and the code or prose it hands on, which
 * is searched for our CLI and our files rather than read as a shell's text.
 */
import { lastWord, MAX_NESTING } from "./toolPaths";

/** Where a tool puts the program it runs, and its arguments (`{"args": ["start"], "command": "intent"}`). */
const PROGRAM_KEYS = ["command", "cmd", "commandline", "program", "executable", "bin"];
export const ARG_KEYS = ["args", "argv", "arguments"];

/**
 * Keys, by their last word, whose text is code or prose a tool runs or hands on (`code`, `query`, `input`,
 * `message`): searched for our CLI and our files, not read as a shell's text (`age > 30` redirects nothing).
 */
const CODE_WORDS = new Set([
  "code",
  "function",
  "query",
  "sql",
  "statement",
  "expression",
  "expr",
  "source",
  "snippet",
  "input",
  "stdin",
  "text",
  "body",
  "message",
  "content",
  "description",
  "title",
  "comment",
  "prompt",
  "cell",
]);
/** The name (normalized) of a tool that wraps our CLI. */
const CLI_TOOL = "intent";
/** Keys, by their last word, that name where or in what a command runs, or what file it works on: read with the command, not as one (`{"shell": "bash"}` runs nothing on its own). */
const PLACE_WORDS = new Set(["cwd", "workdir", "dir", "directory", "folder", "path", "file", "uri", "shell"]);

/**
 * Every string a tool input holds (a git tool's arguments, read as the command's words); undefined when some
 * are nested deeper than MAX_NESTING objects or lists, where the gate does not read.
 */
export function stringsOf(v: unknown, depth = 0): string[] | undefined {
  if (typeof v === "string") return [v];
  // Stryker disable next-line ConditionalExpression: equivalent: a number's or a boolean's values are none
  if (!v || typeof v !== "object") return [];
  if (depth > MAX_NESTING) return undefined;
  const out: string[] = [];
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    const inner = stringsOf(x, depth + 1);
    if (!inner) return undefined;
    out.push(...inner);
  }
  return out;
}

/**
 * What a running tool is given, as the shell policy reads it. Its command, one per line: its program (the
 * tool's own name when it gives none: `npm {"arguments": […]}`) and arguments; every string it holds joined
 * as they come, and again with its arguments last (a program and its arguments may be under any keys:
 * `{"args": […], "bin": "intent"}`); the keys it types joined as typed; and each string alone that does not
 * say where it runs (`cwd` is read with the command, not as one: so a command run in `.orchestration` names
 * it). Its code: the strings under keys of code or prose (CODE_WORDS). Undefined when strings are nested
 * deeper than the gate reads.
 */
export function runText(tool: string, byKey: ReadonlyMap<string, unknown>, input: Record<string, unknown>): { command: string; code: string[] } | undefined {
  if (stringsOf(input) === undefined) return undefined;
  const shellText: string[] = [];
  const alone: string[] = [];
  const code: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    // Stryker disable next-line ArrayDeclaration: unreachable: the input was read whole above, so each value is
    const strings = stringsOf(value) ?? [];
    const word = lastWord(key);
    if (CODE_WORDS.has(word)) code.push(...strings);
    else {
      shellText.push(...strings);
      if (!PLACE_WORDS.has(word)) alone.push(...strings);
    }
  }
  // Stryker disable next-line ArrayDeclaration: unreachable: the input was read whole above, so each value is
  const of = (keys: readonly string[]) => keys.flatMap((k) => stringsOf(byKey.get(k)) ?? []);
  const program = of(PROGRAM_KEYS);
  const args = of(ARG_KEYS);
  const lines = [
    [...(program.length || !args.length ? program : [tool]), ...args].join(" "),
    shellText.join(" "),
    [...shellText.filter((s) => !args.includes(s)), ...args].join(" "),
    of(["keys"]).join(""),
    // a tool named for our CLI (`intent {"command": "select", …}`) runs it with what it is given
    tool === CLI_TOOL ? [tool, ...shellText].join(" ") : "",
    ...alone,
  ];
  return { command: [...new Set(lines.filter(Boolean))].join("\n"), code };
}
