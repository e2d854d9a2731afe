import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { runCli, runCliInProcess } from "../support/cliRunner";
import { gitWorkspace } from "../support/gitRepository";
import { REPO_ROOT } from "../support/lspClient";
import type { TempWorkspace } from "../support/workspace";

/**
 * The README is the first screen of the project: short, with a picture of the editor and of the report, and
 * every command in it one that exists and runs as shown. Everything else lives in docs/, one file per topic,
 * each linked from the README; links between them resolve, anchors included.
 */

beforeAll(ensureBuilt);

const README = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
const DOCS = readdirSync(join(REPO_ROOT, "docs"))
  .filter((f) => f.endsWith(".md"))
  .map((f) => `docs/${f}`);

interface CodeBlock {
  lang: string;
  lines: string[];
}

function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: CodeBlock | undefined;
  for (const line of markdown.split("\n")) {
    const fence = /^```(\S*)/.exec(line);
    if (fence && !open) open = { lang: fence[1] ?? "", lines: [] };
    else if (fence && open) {
      blocks.push(open);
      open = undefined;
    } else open?.lines.push(line);
  }
  return blocks;
}

/** The markdown outside fenced code blocks: where links and headings are. */
function prose(markdown: string): string {
  return markdown
    .split(/^```.*$/m)
    .filter((_, i) => i % 2 === 0)
    .join("\n");
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of prose(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    out.add(
      m[1]!
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/ /g, "-"),
    );
  }
  return out;
}

/** Every `intent …` command the README shows in a code block, without its comment or a leading `exec`/`- run:`. */
function intentCommands(): string[] {
  return codeBlocks(README)
    .flatMap((b) => b.lines)
    .map((l) =>
      l
        .replace(/\s+#\s.*$/, "")
        .replace(/^\s*(- run:|exec)\s+/, "")
        .trim(),
    )
    .filter((l) => l.startsWith("intent "));
}

describe("README", () => {
  it("fits in 250 lines", () => {
    expect(README.split("\n").length).toBeLessThanOrEqual(250);
  });

  it("shows the editor and the report in pictures that exist, each described in its alt text", () => {
    const images = [...prose(README).matchAll(/!\[([^\]]*)\]\(([^)]+)\)/g)].map((m) => ({ alt: m[1]!, src: m[2]! }));
    expect(images.map((i) => i.src)).toEqual(["docs/images/editor-squiggle.png", "docs/images/report-top.png"]);
    for (const { alt, src } of images) {
      const file = join(REPO_ROOT, src);
      expect(readFileSync(file).subarray(1, 4).toString(), src).toBe("PNG");
      expect(statSync(file).size, src).toBeLessThan(300 * 1024);
      expect(alt.length, src).toBeGreaterThan(80);
    }
  });

  it("links every file in docs/", () => {
    const linked = new Set([...prose(README).matchAll(/\]\((docs\/[^)#]+\.md)/g)].map((m) => m[1]));
    expect(DOCS.filter((d) => !linked.has(d))).toEqual([]);
  });

  it("shows only subcommands and options that `intent --help` lists", () => {
    const commands = intentCommands();
    expect(commands.length).toBeGreaterThan(10);
    const listed = runCli(["--help"], { cwd: REPO_ROOT }).stdout;
    for (const command of commands) {
      const [, sub, ...rest] = command.split(/\s+/);
      expect(listed, command).toMatch(new RegExp(`^  ${sub} `, "m"));
      const help = runCli([sub!, "--help"], { cwd: REPO_ROOT });
      expect(help.status, command).toBe(0);
      for (const option of rest.filter((w) => w.startsWith("--"))) expect(help.stdout, command).toContain(option);
    }
  });

  it("names only npm scripts package.json has", () => {
    const scripts = Object.keys((JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { scripts: object }).scripts);
    const used = [...README.matchAll(/npm (start|test|run ([\w:-]+))/g)].map((m) => m[2] ?? m[1]!);
    expect(used).toEqual(expect.arrayContaining(["start", "test"]));
    for (const name of used) expect(scripts, name).toContain(name);
  });
});

describe("README's shell commands, run as shown in a fresh repository", () => {
  let ws: TempWorkspace | undefined;
  afterEach(() => ws?.dispose());

  it("each `intent` command of the quick starts runs and answers (the network one, `ledger fetch`, aside)", async () => {
    ws = gitWorkspace();
    const shell = codeBlocks(README)
      .filter((b) => b.lang === "sh")
      .flatMap((b) => b.lines);
    const commands = intentCommands().filter((c) => shell.some((l) => l.includes(c)) && !c.startsWith("intent ledger fetch"));
    expect(commands).toEqual(expect.arrayContaining(["intent init", "intent check --staged", "intent report"]));
    for (const command of commands) {
      const args = command
        .split(/\s+/)
        .slice(1)
        .map((w) => (w === "SESSION" ? "claude-readme" : w));
      const r = await runCliInProcess(args, { cwd: ws.root, intentInProcess: true });
      // doctor exits 1 on a machine without intent-lsp on PATH; what it checked is the answer
      if (args[0] === "doctor") expect(r.stdout, command).toMatch(/^ok +\.gitattributes:/m);
      else expect({ command, status: r.status, stderr: r.stderr }).toEqual({ command, status: 0, stderr: "" });
    }
    expect(existsSync(ws.path(".orchestration/.cache/report.html"))).toBe(true);
    expect(existsSync(ws.path(".claude/settings.json"))).toBe(true);
  });
});

describe("the documentation's links", () => {
  it("point at files that exist, and at headings those files have", () => {
    const broken: string[] = [];
    for (const file of ["README.md", ...DOCS, ...readdirSync(join(REPO_ROOT, "clients")).map((c) => `clients/${c}/README.md`)]) {
      if (!existsSync(join(REPO_ROOT, file))) continue;
      for (const m of prose(readFileSync(join(REPO_ROOT, file), "utf8")).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
        const [path, anchor] = target.split("#");
        const resolved = path ? join(dirname(join(REPO_ROOT, file)), path) : join(REPO_ROOT, file);
        if (!existsSync(resolved)) broken.push(`${file}: ${target} (no ${relative(REPO_ROOT, resolved)})`);
        else if (anchor && resolved.endsWith(".md") && !anchors(readFileSync(resolved, "utf8")).has(anchor))
          broken.push(`${file}: ${target} (no heading #${anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });
});
