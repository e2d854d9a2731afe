import { spawnSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { CLI_JS, runCli, runCliInProcess } from "../support/cliRunner";

/**
 * `intent completion bash|zsh|fish` (README "The CLI"): a script made from the CLI's command table, each
 * command with the options it parses. The bash script is loaded into a real bash and asked as bash asks it;
 * zsh and fish are not installed on the machines these tests run on, so their scripts are checked as text.
 */

beforeAll(ensureBuilt);

/** What bash's completion function answers for the words typed so far (the last one being completed). */
function bashCompletes(words: string[]): string[] {
  const script = [
    `source <("${process.execPath}" "${CLI_JS}" completion bash) || exit 3`,
    `COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")})`,
    `COMP_CWORD=${words.length - 1}`,
    "_intent",
    `printf '%s\\n' "\${COMPREPLY[@]}"`,
    "complete -p intent >&2",
  ].join("\n");
  const r = spawnSync("bash", ["--norc", "--noprofile", "-c", script], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).toBe("complete -o default -F _intent intent\n");
  return r.stdout.split("\n").filter((l) => l !== "");
}

/** The commands `intent --help` lists, in its order. */
function helpCommands(): string[] {
  const help = runCli(["--help"], { cwd: process.cwd() }).stdout;
  return [
    ...help
      .split("Commands:\n")[1]!
      .split("\n\n")[0]!
      .matchAll(/^ {2}(\S+)/gm),
  ].map((m) => m[1]!);
}

describe("intent completion", () => {
  it("bash: loads in bash and completes a command's prefix, every command of the table, and a command's options", () => {
    expect(bashCompletes(["intent", "bl"])).toEqual(["blame", "block"]);
    expect(bashCompletes(["intent", "comp"])).toEqual(["complete", "completion"]);
    const all = bashCompletes(["intent", ""]);
    expect(all).toEqual(helpCommands());
    expect(all).toContain("completion");
    expect(bashCompletes(["intent", "--v"])).toEqual(["--version"]);
    expect(bashCompletes(["intent", "report", "--o"])).toEqual(["--out"]);
    expect(bashCompletes(["intent", "stats", "--"])).toEqual(["--root", "--path", "--since", "--until", "--by", "--json", "--help"]);
    expect(bashCompletes(["intent", "complete", "INT-001", "--s"])).toEqual(["--skip-verify"]);
    // a word that is not an option is left to bash's file names (complete -o default)
    expect(bashCompletes(["intent", "blame", "sr"])).toEqual([]);
  });

  it("zsh and fish: the same commands, with their summaries, and each command's options", () => {
    const zsh = runCli(["completion", "zsh"], { cwd: process.cwd() });
    expect(zsh.status).toBe(0);
    expect(zsh.stdout).toMatch(/^#compdef intent\n/);
    expect(zsh.stdout).toContain("    'blame:show who wrote each line, under which intent'\n");
    expect(zsh.stdout).toContain("    (report) options=(--root --path --since --until --by --out --help) ;;\n");
    expect(zsh.stdout).toContain("  compdef _intent intent\n");
    expect([...zsh.stdout.matchAll(/^ {4}'([a-z]+):/gm)].map((m) => m[1])).toEqual(helpCommands());

    const fish = runCli(["completion", "fish"], { cwd: process.cwd() });
    expect(fish.status).toBe(0);
    expect(fish.stdout).toContain("complete -c intent -n __intent_no_command -a blame -d 'show who wrote each line, under which intent'\n");
    expect(fish.stdout).toContain("-a hook -d 'answer an agent\\'s hook call (claude-code");
    expect(fish.stdout).toContain('complete -c intent -n "__fish_seen_subcommand_from report" -l out -r -F\n');
    expect(fish.stdout).toContain('complete -c intent -n "__fish_seen_subcommand_from stats" -l json\n');
    expect([...fish.stdout.matchAll(/ -a ([a-z]+) -d /g)].map((m) => m[1])).toEqual(helpCommands());
  });

  it("names the shells it knows, and --help lists it", async () => {
    expect(await runCliInProcess(["completion", "tcsh"], { cwd: process.cwd() })).toEqual({
      status: 2,
      stdout: "",
      stderr: 'intent completion: no completion for the shell "tcsh"; the shells are bash, zsh, fish\n',
    });
    expect(await runCliInProcess(["completion"], { cwd: process.cwd() })).toMatchObject({ status: 2 });
    expect(helpCommands()).toContain("completion");
    expect((await runCliInProcess(["completion", "--help"], { cwd: process.cwd() })).stdout).toMatch(/^Usage: intent completion bash\|zsh\|fish\n/);
  });
});
