import type { GateDecision } from "./decision";

/**
 * A shell command cannot be scoped before it runs: which files it writes is only known after (shellWrite.ts
 * records and checks them then). So the gate asks the person about commands that look like they write or
 * delete files and leaves the others to the agent's own permission rules. A heuristic, on purpose on the
 * cautious side; it is not a sandbox.
 *
 * One kind of command is never left to the agent: one that changes the rules themselves (an intent's
 * status or scope, the settings, the ignore files, the ledger, the selection). Through the shell an agent
 * could otherwise start the intent it was denied and then write where it was denied a moment ago; a direct
 * edit of those files is already put to the person, and so is this (`rule-command`; agents that cannot ask
 * deny it, telling the agent to ask the person to run it). It covers our CLI's commands that change them
 * however the CLI is reached, and any command naming those files that is not known to only read them.
 */
/** git's options before its subcommand (`git -C dir checkout …`, `git -c k=v apply`): the subcommand is what writes. */
const GIT = String.raw`git(\s+(-C\s+\S+|-c\s+\S+|--[a-z-]+(=\S+)?|-[a-zA-Z]))*\s+`;

/** A script's calls that write files (Node, Python): also searched in code a tool runs. */
const SCRIPT_WRITES =
  /\b(writeFile|appendFile|copyFile|createWriteStream|renameSync|unlinkSync|rmSync|mkdirSync|cpSync|symlinkSync|write_text|write_bytes|shutil\.|os\.(remove|rename|replace|unlink|makedirs|mkdir|symlink)|open\([^)]*['"][rwaxbt]*[wax+][rwaxbt+]*['"]|\.(touch|unlink|rename)\()/;
const SCRIPT_WRITING: [RegExp, string] = [SCRIPT_WRITES, "writes files from a script"];

/** Redirections, found outside quoted text (`git commit -m "retry when count > 0"` redirects nothing). */
const REDIRECTS: readonly [RegExp, string][] = [
  [/(?<![<>=-])[\d&]?>>?(?!=)\|?\s*(?!&\d|\/dev\/(null|stdout|stderr)\b)[^\s&|;<>]/, "redirects output into a file"],
  [/[\d]?<>\s*[^\s&|;<>]/, "opens a file for writing"],
];

/**
 * What a command writes, as a clause, by the first of WRITING_COMMANDS it matches: REDIRECTS outside quoted
 * text, unless a program in it runs code or another program (`sh -c '… > f'`, `python -c`, `env`, `xargs`).
 */
function writesOf(command: string): readonly [RegExp, string] | undefined {
  // Stryker disable next-line Regex: equivalent: an empty word is no program
  const runsText = command.split(/[\s;&|()`]+/).some((w) => RUNNERS.has(baseName(w)) || RUNS_OTHERS.has(baseName(w)));
  const unquoted = runsText ? command : command.replace(/'[^']*'/g, "''").replace(/"(?:[^"\\]|\\.)*"/g, '""');
  return REDIRECTS.find(([pattern]) => pattern.test(unquoted)) ?? WRITING_COMMANDS.find(([pattern]) => pattern.test(command));
}

const WRITING_COMMANDS: readonly [RegExp, string][] = [
  [/(^|[\s;&|(`])(rm|rmdir|unlink|shred|truncate)(\s|$)/, "deletes files"],
  [/(^|[\s;&|(`])(mv|cp|install|ln|rsync|dd|touch|mkdir|chmod|chown)(\s|$)/, "creates, moves or changes files"],
  [/(^|[\s;&|(`])tee(\s|$)/, "writes a file with tee"],
  [/(^|[\s;&|(`])(sed|perl|ruby)\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*i/, "edits files in place"],
  [
    new RegExp(
      String.raw`(^|[\s;&|(\`])${GIT}((checkout|checkout-index|read-tree|switch|restore|reset|clean|stash|apply|am|merge|rebase|cherry-pick|revert|pull|mv|rm|update-index|worktree|sparse-checkout|submodule|clone|init|archive|bundle)(\s|$)|[^;&|]*\s['"]?--output(=|\s))`,
    ),
    "writes files or rewrites the working tree with git",
  ],
  [
    /(^|[\s;&|(`])((patch|unzip|gunzip|bunzip2|unxz|unzstd)(\s|$)|(gzip|bzip2|xz|zstd)\s[^;&|]*-[a-zA-Z]*d|tar\s([^;&|]*\s)?(-?[a-zA-Z]*x[a-zA-Z]*(\s|$)|--extract))/,
    "unpacks or patches files",
  ],
  [
    /(^|[\s;&|(`])(curl(\s[^;&|]*)?\s(-[a-zA-Z]*[oO]|--output|--remote-name)|wget(\s|$)(?![^;&|]*(-[a-zA-Z]*O\s*|--output-document=?)-(\s|$))|sort(\s[^;&|]*)?\s-o)/,
    "downloads or writes a file",
  ],
  [/(^|[\s;&|(`])(ed|ex)\s|(^|[\s;&|(`])(vim?|nvim)\s[^;&|]*-[a-zA-Z]*[es]/, "edits files with an editor's script"],
  [/(^|[\s;&|(`])(npx\s+)?(prettier\s+.*--write|eslint\s+.*--fix)(\s|$)/, "rewrites files with a formatter"],
  SCRIPT_WRITING,
];

/**
 * The decision on a shell command, and on `code` the same call runs or hands to a program (a tool's `code`,
 * `query` or `input`: toolCall.ts), which is searched for our CLI, our files and a script's writes only, not
 * read as a shell's text (`age > 30` redirects nothing).
 */
export function gateShell(command: string, code: readonly string[] = []): GateDecision {
  const rules = changesRules(command) ?? codeChangesRules(code);
  if (rules) {
    return {
      kind: "ask",
      code: "rule-command",
      reason: `This command ${rules}. They decide which intent may write where, so changing them is the user's decision, not an agent's; intent-lsp puts it to the user.`,
    };
  }
  const writes = writesOf(command) ?? (code.some((c) => SCRIPT_WRITES.test(c)) ? SCRIPT_WRITING : undefined);
  if (writes) {
    return {
      kind: "ask",
      code: "shell-write",
      reason: `This command ${writes[1]}; intent-lsp cannot check a shell command's writes against the active intent's scope before it runs (they are recorded and checked after it), so the user decides. Prefer the Write/Edit tools for file changes: they are checked before they happen.`,
    };
  }
  return { kind: "none", code: "shell-read-only" };
}

/** What code changes of the rules: our CLI called in it, or our files named in it (it is not known to only read them). */
function codeChangesRules(code: readonly string[]): string | undefined {
  for (const c of code) {
    // also as a shell joins it, if typed into one (`in""tent`, a backslash at a line's end)
    const cli = calledInside(["python3", c], 0) ?? calledInside(["python3", c.replace(/\\\n|['"\\]/g, "")], 0);
    if (cli) return `runs \`intent ${cli}\`, which changes intent-lsp's rules or selection (which intents are in progress, their scopes, the selected intent)`;
    if (RULE_PATHS.test(c))
      return "runs code that names intent-lsp's own files (the intents, settings, ignore files, ledger or selection under .orchestration/), which is not known to only read them";
  }
  return undefined;
}

// --- commands that change the rules -------------------------------------------------------------------------

/** Our CLI's subcommands that only read; every other one, or none we know, may change the rules. */
const READ_ONLY_SUBCOMMANDS = new Set(["status", "check", "blame", "context", "verify", "doctor", "help", "--help", "-h", "--version", "-v"]);
/** Our CLI's subcommands that write: what `node …/cli.js X` must be to count as our CLI (cli.js is a common name). */
const WRITING_SUBCOMMANDS = new Set([
  "init",
  "select",
  "start",
  "complete",
  "block",
  "archive",
  "amend",
  "hook",
  "map",
  "migrate",
  "import",
  "ledger",
  "revert",
]);
/** How the CLI is reached: `intent`, its launcher `dist/cli.js`, the bundle `intent-cli.js`, by any path. */
const CLI_NAME = /^(intent|intent-cli\.[cm]?js)$/;
const LAUNCHER_NAME = /^cli\.[cm]?js$/;
/** Words that run the program after them: `npx intent`, `env X=1 intent`, `node dist/cli.js`, `sudo -E intent`. */
const RUNNERS = new Set([
  "env",
  "sudo",
  "doas",
  "command",
  "exec",
  "time",
  "nice",
  "nohup",
  "timeout",
  "stdbuf",
  "xargs",
  "npx",
  "pnpx",
  "bunx",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "dlx",
  "x",
  "node",
  "nodejs",
  "tsx",
  "ts-node",
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "fish",
  "eval",
  "builtin",
]);
/** Programs that only read the files they are given (no in-place option among those we let through). */
const READERS = new Set([
  "cat",
  "head",
  "tail",
  "less",
  "more",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "ls",
  "wc",
  "diff",
  "cmp",
  "stat",
  "file",
  "jq",
  "tree",
  "du",
  "echo",
  "printf",
  "test",
  "[",
  "true",
  "cd",
  "pwd",
  "find",
  "md5sum",
  "sha1sum",
  "sha256sum",
  "xxd",
  "hexdump",
  "od",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "which",
  "type",
  "bat",
  "git",
  "intent",
]);
/** git subcommands that leave the working tree as it is. */
const GIT_READERS = new Set(["status", "diff", "log", "show", "blame", "ls-files", "rev-parse", "cat-file", "grep", "add", "commit"]);
/** `find` options that write or run a command. */
const FIND_WRITES = /(^|\s)-(delete|exec|execdir|ok|okdir|fprint0?|fprintf|fls)(\s|$)/;
/** The files the rules live in, as a command may name them (also from inside `.orchestration/` after a `cd`). */
const RULE_PATHS =
  /(^|[\s'"=<>|;&(`:/])(\.orchestration(\/|\s|$|['";&|)`])|\.intentignore\b|active_intents\.ya?ml\b|agent_trace\.jsonl\b|config\.jsonc\b|\.sessions(\/|\b))/;

/**
 * A command whose text is made as it runs: `eval` or a shell's `-c` given a substitution, a shell or
 * `source` reading a process substitution or its standard input as a script, `xargs` building a shell's
 * command.
 */
const BUILT_COMMAND =
  /(^|[\s;&|(])(eval\s+[^;&|]*(\$\(|`|\$')|(sh|bash|zsh|dash|ksh)\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*c\s+[^;&|]*(\$\(|`|\$')|(sh|bash|zsh|dash|ksh|source|\.)\s+(-[a-zA-Z]+\s+)*(<\(|\/dev\/stdin)|xargs\s+[^;&|]*(sh|bash|zsh|dash|ksh)\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*c)/;

/** A pattern the shell expands (`.orch*` then a file name, `.[a-z]*`) that may name a hidden file or folder: ours among them. */
const HIDDEN_GLOB = /(^|[\s'"=<>|;&(`:/])\.[^\s/'"]*[*?[]/;

/** What a command does to the rules, as a clause ("runs `intent start`"), or undefined when it leaves them alone. */
function changesRules(command: string): string | undefined {
  const segments = simpleCommands(command);
  if (BUILT_COMMAND.test(command))
    return 'runs a command it builds as it runs (`eval "$(…)"`, `sh -c "$(…)"`, `<(…)`, `/dev/stdin`), which intent-lsp cannot read before it runs (it may change its rules or selection)';
  for (const words of segments) {
    const cli = cliCall(words);
    if (cli) return `runs \`intent ${cli}\`, which changes intent-lsp's rules or selection (which intents are in progress, their scopes, the selected intent)`;
    const shell = readsCommands(words);
    if (shell)
      return `runs \`${shell}\` on commands it reads from its input, which intent-lsp cannot read before they run (they may change its rules or selection)`;
  }
  if (!RULE_PATHS.test(command) && !HIDDEN_GLOB.test(command)) return undefined;
  const writes = writesOf(command);
  if (writes) return `${writes[1]} and names intent-lsp's own files (the intents, settings, ignore files, ledger or selection under .orchestration/)`;
  // naming those files, anything but a known reader may change them: unsure is asked (fail closed)
  if (segments.every((words) => onlyReads(words))) return undefined;
  return "names intent-lsp's own files (the intents, settings, ignore files, ledger or selection under .orchestration/) and is not known to only read them";
}

/**
 * The command's simple commands, as word lists, read as the shell would join its words: quotes and
 * backslashes dropped (`in"tent" start` runs `intent start`), then split at every control operator,
 * parenthesis, brace, backtick and `$(`. So a command inside `bash -c '…'`, `$(…)` or `eval "…"` is a simple
 * command of its own, read as the command it may well be (the cautious reading).
 */
function simpleCommands(command: string): string[][] {
  // text inside quotes that expand nothing is one word (`git commit -m "fix(hook); intent init"`): its
  // operators end no command, and its spaces are QUOTED_SPACE (calledInside reads into it only for programs
  // that run code)
  const quoted = (q: string) => q.replace(/[;&|(){}`<>]/g, " ").replace(/\s/g, QUOTED_SPACE);
  let text = command
    .replace(/'[^']*'/g, quoted)
    .replace(/"(?:[^"\\$`]|\\.)*"/g, quoted)
    .replace(/\\\n|['"\\]/g, "");
  // a parameter expansion or a command's output may name any program (`${I:-intent} start`, `$(which
  // intent) start`): each becomes a word with a `$` (read as possibly our CLI, see cliCall), and each
  // substituted command is read as a simple command of its own; innermost first
  const substituted: string[] = [];
  let before: string;
  do {
    before = text;
    // a brace expansion (`{intent,start}`) is its words, side by side
    text = text
      .replace(/\$\{[^{}]*\}/g, "$P")
      .replace(/\{([^{}]*,[^{}]*)\}/g, (_, words: string) => ` ${words.replaceAll(",", " ")} `)
      .replace(/\$\(([^()]*)\)|`([^`]*)`/g, (_, inParens: string | undefined, inTicks: string | undefined) => {
        // Stryker disable next-line StringLiteral: equivalent: one of the two groups matched
        substituted.push(inParens ?? inTicks ?? "");
        return "$S";
      });
  } while (before !== text);
  // an expansion in a word may join it to its neighbours (`in${X}tent`) or split it (`intent${IFS}start`): both are read
  return [text, text.replaceAll("$P", " $P "), ...substituted]
    .join("\n")
    .split(/[;&|()`{}\n\r]|\$\(/)
    .map((s) => s.split(/\s/).filter(Boolean))
    .filter((words) => words.length > 0);
}

/** A word before the program a simple command runs: an assignment, an option, a count or duration, a runner. */
const beforeProgram = (w: string) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(w) || w.startsWith("-") || /^\d+[smhd]?$/.test(w) || RUNNERS.has(baseName(w));

/** The program a simple command runs, past assignments, options and runners, and the index of its word. */
function program(words: readonly string[]): number {
  let i = 0;
  while (i < words.length && beforeProgram(words[i]!)) i++;
  return i;
}

/** The subcommand of our CLI this simple command runs when it is one that may change the rules. */
function cliCall(words: readonly string[]): string | undefined {
  const at = program(words);
  // Stryker disable next-line StringLiteral: equivalent: a command of options alone names no program
  const name = baseName(words[at] ?? "");
  const sub = words[at + 1];
  if (CLI_NAME.test(name)) {
    // Stryker disable next-line ConditionalExpression: equivalent: without a subcommand, undefined is returned either way
    if (sub === undefined || READ_ONLY_SUBCOMMANDS.has(sub)) return undefined;
    return sub;
  }
  // cli.js is a common name, and a word with an expansion (`$X`, `in${X}tent`) or a pattern (`bi?/inten?`)
  // could be anything: they count when they run one of our writing commands
  if ((LAUNCHER_NAME.test(name) || /[$*?[]/.test(name)) && sub !== undefined && writing(sub)) return sub;
  return calledInside(words, at);
}

/** Whether `sub`, after a word that may be our CLI, is one of its writing subcommands (or may be one). */
const writing = (sub: string) => WRITING_SUBCOMMANDS.has(sub) || sub.includes("$");

/**
 * Our CLI named further on in a simple command, as a program the first one runs: after a runner's options
 * (`env -u X intent`, `timeout -s KILL 9 intent`), by xargs, find -exec, sudo, watch, a git alias or a git
 * setting that names a command, or in a script's text (`perl -e 'system "intent","start"'`). After such a
 * program every word, quoted text included, is cut at the characters that can end a program's name in a
 * script, and our CLI followed by one of its writing subcommands counts wherever it stands; after a package
 * runner only its own words count; after any other program (`git commit -m …`, `gh pr create --title …`)
 * its arguments are text it keeps.
 */
function calledInside(words: readonly string[], at: number): string | undefined {
  // Stryker disable next-line StringLiteral: equivalent: a command of options alone names no program
  const program = baseName(words[at] ?? "");
  // git runs what its configuration, an alias or an external diff tool names
  const gitRuns = program === "git" && words.some((w) => /^(-c|--config-env|-x|--extcmd)$|alias\.|^GIT_[A-Z_]+=/.test(w));
  const prefix = words.slice(0, at + 1).map(baseName);
  const runsCode = gitRuns || prefix.some((w) => RUNS_OTHERS.has(w) || (RUNNERS.has(w) && !PACKAGE_RUNNERS.has(w)));
  // a package runner runs a package's program: its own words name it, quoted text is its arguments
  if (!runsCode && !prefix.some((w) => PACKAGE_RUNNERS.has(w))) return undefined;
  const tokens = runsCode ? words.flatMap((w) => w.split(/[^A-Za-z0-9_.$/@-]/).filter(Boolean)) : words;
  for (let i = 0; i + 1 < tokens.length; i++) {
    const name = baseName(tokens[i]!);
    if ((CLI_NAME.test(name) || LAUNCHER_NAME.test(name) || /[$*?[]/.test(name)) && writing(tokens[i + 1]!)) return tokens[i + 1];
  }
  return undefined;
}

/** What a quoted text's spaces become: the text stays one word (see simpleCommands). */
const QUOTED_SPACE = "\u0001";
/** Runners of a package's program (`npx vitest …`, `npm run …`): our CLI is one when a word of the command names it. */
const PACKAGE_RUNNERS = new Set(["npx", "pnpx", "bunx", "npm", "pnpm", "yarn", "dlx", "x"]);

/**
 * Programs that run another program or a script's text, beyond the runners (`RUNNERS`): interpreters given
 * code, and what runs a command it is given (`find -exec`, `watch`, `script -c`, `ssh`, `docker run`).
 * Other programs' arguments are text they keep (`gh pr create --title "intent start …"`), not read for our CLI.
 */
const RUNS_OTHERS = new Set([
  ...[
    "perl",
    "python",
    "python2",
    "python3",
    "ruby",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "php",
    "lua",
    "osascript",
    "tclsh",
    "pwsh",
    "powershell",
    "deno",
    "Rscript",
  ],
  ...["script", "su", "runuser", "ssh", "busybox", "parallel", "find", "watch", "setsid", "flock", "chroot", "ionice", "taskset", "chrt", "unshare", "nsenter"],
  // wrappers that run the program they are given, and terminals and editors that run a command (`vim -c '!…'`)
  ...["cross-env", "dotenv", "strace", "ltrace", "valgrind", "fakeroot", "unbuffer", "tmux", "screen", "vim", "nvim", "vi", "view"],
  ...["docker", "podman", "kubectl"],
]);

/** The shell a simple command runs on the commands it reads from its input (`… | sh`): neither `-c` nor a script named. */
function readsCommands(words: readonly string[]): string | undefined {
  const at = words.findIndex((w) => SHELL_PROGRAMS.has(baseName(w)));
  // the shell is the program, past what comes before one (`env X=1 nice -n 5 bash`), and given options only
  // (`-c` without its command string runs nothing, so it is read as reading too)
  // Stryker disable next-line MethodExpression: equivalent: the shell and its options are words before a program too
  if (at === -1 || !words.slice(0, at).every(beforeProgram) || !words.slice(at + 1).every((w) => w.startsWith("-"))) return undefined;
  return baseName(words[at]!);
}

const SHELL_PROGRAMS = new Set(["sh", "bash", "zsh", "dash", "ksh", "fish"]);

/** Whether a simple command only reads the files it names (our CLI's writing calls were told apart before: `changesRules`). */
function onlyReads(words: readonly string[]): boolean {
  const at = program(words);
  // Stryker disable next-line StringLiteral: equivalent: a command of options alone names no program
  const name = baseName(words[at] ?? "");
  if (!READERS.has(name)) return false;
  // Stryker disable next-line StringLiteral: equivalent: `git` alone is no subcommand GIT_READERS holds either way
  if (name === "git") return GIT_READERS.has(words[at + 1] ?? "");
  if (name === "find") return !FIND_WRITES.test(words.join(" "));
  return true;
}

const baseName = (w: string) => w.slice(w.lastIndexOf("/") + 1);
