/**
 * The gate judges the location a write really reaches. For generated spellings of a path (links in and out
 * of the workspace, into a COMPLETE intent's folder, to the symlinked workspace root, dangling links, link
 * loops, `..`, `.`, `//`, backslashes, `~`, NFC/NFD, case, trailing `/`, absolute and relative), the gate's
 * answer must equal the answer for the real path a write through that exact spelling lands on. The landing
 * is found by the kernel itself: the file is opened (created) through the spelling with node's fs, after
 * creating its folders as spelled (what agents' write tools do), and /proc/self/fd names what was opened.
 * Outside the workspace, or a write that fails: deny. Inside: the gate's answer on that real path.
 */
import {
  closeSync,
  constants,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gateWrite, loadGateContext, type GateContext } from "../../server/src/io/agent/writeGate";
import { absolute } from "../../server/src/cli/hook/toolEvent";
import { Prng } from "../oracle/prng";
import { EXAMPLE_WORKSPACE } from "../support/workspace";

const SOAK = process.env["INTENT_LSP_SOAK"] === "1";
const COUNT = SOAK ? 100_000 : 5_000;
const SEED = process.env["INTENT_LSP_SEED"] ? Number(process.env["INTENT_LSP_SEED"]) : SOAK ? Date.now() % 0x7fffffff : 20261125;

/** The private folder every write stays in (see `base`). */
let outer: string;
/**
 * The scratch tree, eight folders below `outer`: a spelling climbs at most six folders above it (five `..`
 * or `up` segments and one from its start), so no write, and no folder a write creates, leaves `outer`.
 */
let base: string;
let ws: string;
let realWs: string;
let wsLink: string;
/** Every path in the scratch tree before any write: what a write creates is removed again. */
let initial: Set<string>;

beforeAll(() => {
  // a memory file system where there is one: the writes are real, and thousands of them stay quick
  outer = realpathSync(mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "gate-paths-")));
  base = join(outer, "d1/d2/d3/d4/d5/d6/d7/d8");
  mkdirSync(base, { recursive: true });
  ws = join(base, "ws");
  cpSync(EXAMPLE_WORKSPACE, ws, { recursive: true });
  realWs = ws;
  wsLink = join(base, "wslink");
  symlinkSync(ws, wsLink);
  mkdirSync(join(base, "out", "sub"), { recursive: true });
  mkdirSync(join(base, "home"));
  const api = join(ws, "src/api");
  symlinkSync("../../../out", join(api, "out")); // relative, out of the workspace
  symlinkSync(join(base, "out"), join(api, "outabs"));
  symlinkSync("../billing", join(api, "bill")); // into the COMPLETE intent's folder
  symlinkSync(join(ws, "docs"), join(api, "docs"));
  symlinkSync("../nothere", join(api, "dang")); // dangling, inside
  symlinkSync("../../../out/nothere", join(api, "dangout")); // dangling, outside
  symlinkSync("../../../out/missing/deeper", join(api, "dangdeep")); // dangling into a folder that does not exist
  symlinkSync("loop2", join(api, "loop1"));
  symlinkSync("loop1", join(api, "loop2"));
  symlinkSync(".", join(api, "self"));
  symlinkSync("..", join(api, "up"));
  symlinkSync("weather.ts", join(api, "filelink"));
  symlinkSync("../../src/billing/export.ts", join(api, "billfile"));
  symlinkSync(wsLink, join(ws, "docs", "wsroot")); // to the symlinked workspace root
  symlinkSync(join(ws, "src/api"), join(base, "out", "back")); // from outside back in
  mkdirSync(join(ws, "caf\u00e9"));
  initial = new Set(walk(outer));
});

afterAll(() => rmSync(outer, { recursive: true, force: true }));

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out.push(p);
    if (lstatSync(p).isDirectory()) out.push(...walk(p));
  }
  return out;
}

const SEGMENTS = [
  "src",
  "api",
  "billing",
  "docs",
  "auth",
  "lib",
  "new",
  "API",
  "Src",
  "caf\u00e9",
  "cafe\u0301",
  ".orchestration",
  "dist",
  ".",
  "..",
  "",
  "",
  "..",
  ".",
  "..",
  "out",
  "outabs",
  "bill",
  "docs",
  "dang",
  "dangout",
  "dangdeep",
  "loop1",
  "self",
  "up",
  "filelink",
  "billfile",
  "wsroot",
  "back",
  "sub",
  "weather.ts",
  "a\\..\\..\\api",
  "x\\y",
  "..\\billing",
  "~",
];
const FILES = [
  ".orchestration/active_intents.yaml",
  ".intentignore",
  "x.ts",
  "y.md",
  "weather.ts",
  "notes.md",
  "export.ts",
  "README.md",
  ".bashrc",
  "evil.log",
  "active_intents.yaml",
  "x\\..\\..\\api\\y.ts",
  "caf\u00e9.ts",
  "cafe\u0301.ts",
  "X.TS",
  "dang",
  "dangout",
  "dangdeep",
  "loop1",
  "filelink",
  "billfile",
  "up",
  "self",
];
const STARTS = ["~", "~/", "~/.bashrc", "~foo/x.ts"];

interface Spelling {
  /** What the agent's tool call says. */
  given: string;
  /** The gate's workspace root (the real folder or the symlink to it). */
  root: string;
  /** For an agent whose tools expand `~` (Codex): the home folder. */
  home?: string;
  /** The session's selected intent, if any (INT-005 is COMPLETE). */
  selected?: string;
}

function generate(rng: Prng): Spelling {
  const s = spelling(rng);
  const selected = rng.pick([undefined, undefined, "INT-001", "INT-005"]);
  return selected ? { ...s, selected } : s;
}

function spelling(rng: Prng): Spelling {
  const root = rng.chance(0.35) ? wsLink : ws;
  const parts: string[] = [];
  for (let n = rng.int(0, 5); n > 0; n--) parts.push(rng.pick(SEGMENTS));
  parts.push(rng.pick(FILES));
  // relative to where it starts: an empty first segment would make it absolute (`/…`, the machine's root)
  let tail = parts.join("/").replace(/^\/+/, "./");
  if (rng.chance(0.04)) tail += "/";
  if (rng.chance(0.03)) tail += "/.";
  const form = rng.weighted({ relative: 4, absolute: 3, link: 2, outside: 1, tilde: 1 });
  switch (form) {
    case "relative":
      return { given: tail, root };
    case "absolute":
      return { given: `${ws}/${tail}`, root };
    case "link":
      return { given: `${wsLink}/${tail}`, root };
    case "outside":
      return { given: `${base}/${rng.pick(["out/back", "out", "out/sub/..", "wslink/..", "ws/../wslink"])}/${tail}`, root };
    case "tilde": {
      const start = rng.pick(STARTS);
      const given = start.endsWith("/") || start === "~" ? `${start}${start === "~" ? "/" : ""}${tail}` : rng.chance(0.5) ? start : `${start}/${tail}`;
      return { given, root, ...(rng.chance(0.5) ? { home: rng.pick([join(base, "home"), ws, wsLink]) } : {}) };
    }
  }
}

/** The gate's answer, reduced to what must agree: the kind, and the code when the file lands inside. */
type Answer = { kind: string; code?: string };

const contexts = new Map<string, GateContext>();
function gateFor(root: string, selected: string | undefined): GateContext {
  const key = `${root}\u0000${selected}`;
  let ctx = contexts.get(key);
  if (!ctx) {
    ctx = loadGateContext(root, "property");
    if (selected) ctx.selection = { intentId: selected, source: "session" };
    contexts.set(key, ctx);
  }
  return ctx;
}

/**
 * Opens (creates) the file through `spelling` as a write tool does (its folders first, as spelled), and
 * returns where the kernel put it, or undefined when the write fails. Nothing existing is changed: the file
 * is opened without truncating, and whatever the write created is removed again.
 */
function landingOfWrite(spelling: string): string | undefined {
  if (!spelling.startsWith(`${outer}/`)) throw new Error(`the generator made a spelling that does not start in the scratch folder: ${spelling}`);
  const created: string[] = [];
  const parts = spelling.split("/");
  for (let i = 1; i < parts.length; i++) {
    const prefix = parts.slice(0, i).join("/");
    if (prefix.length <= outer.length && outer.startsWith(prefix)) continue; // the private folder and above exist

    try {
      mkdirSync(prefix);
      created.push(prefix);
    } catch {
      /* exists, or fails: the open below says whether the write can happen */
    }
  }
  let landing: string | undefined;
  try {
    const fd = openSync(spelling, constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK);
    try {
      landing = readlinkSync(`/proc/self/fd/${fd}`);
    } finally {
      closeSync(fd);
    }
  } catch {
    landing = undefined;
  }
  // never touch anything outside the private folder (the generator keeps every write in it; this makes sure)
  if (landing !== undefined && !landing.startsWith(`${outer}/`)) throw new Error(`a write through ${spelling} left the scratch folder: ${landing}`);
  if (landing !== undefined && !initial.has(landing)) unlinkSync(landing);
  for (const dir of created.reverse()) {
    if (!realpathSync.native(dir).startsWith(`${outer}/`)) throw new Error(`a folder created through ${dir} is outside the scratch folder`);
    rmdirSync(dir);
  }
  return landing;
}

/** The path the agent's tool writes: `~` expanded for an agent that expands it (as its hook door does). */
const toolPath = (s: Spelling) => (s.home !== undefined ? absolute(s.root, s.given, s.home) : s.given);

function expectedAnswer(s: Spelling): Answer {
  const given = toolPath(s);
  // a leading `~` that the agent does not expand (or `~user`) is refused rather than guessed at
  if (/^~[^/]*(\/|$)/.test(given)) return { kind: "deny", code: "bad-path" };
  const landing = landingOfWrite(given.startsWith("/") ? given : `${s.root}/${given}`);
  if (landing === undefined) return { kind: "deny" };
  if (!landing.startsWith(`${realWs}/`)) return { kind: "deny", code: "outside-workspace" };
  // the landing is a real path: no link and no `..` left in it
  const d = gateWrite(gateFor(ws, s.selected), landing).decision;
  return { kind: d.kind, code: d.code };
}

function gateAnswer(s: Spelling): Answer {
  const d = gateWrite(gateFor(s.root, s.selected), toolPath(s)).decision;
  return { kind: d.kind, code: d.code };
}

const agrees = (gate: Answer, expected: Answer) => gate.kind === expected.kind && (expected.code === undefined || gate.code === expected.code);

describe("the gate judges where a write through any spelling lands", () => {
  it(
    `${COUNT} generated spellings: the gate's answer equals the answer on the landing (seed ${SEED})`,
    async () => {
      const rng = new Prng(SEED);
      const differ: string[] = [];
      const kinds = new Map<string, number>();
      for (let i = 0; i < COUNT; i++) {
        if (i % 500 === 0) await new Promise((r) => setImmediate(r)); // let the test runner's messages through
        const s = generate(rng);
        const gate = gateAnswer(s); // before the write: the gate runs before the tool
        const expected = expectedAnswer(s);
        const key = `${gate.kind}:${gate.code}`;
        kinds.set(key, (kinds.get(key) ?? 0) + 1);
        if (!agrees(gate, expected)) {
          differ.push(
            `seed ${SEED} #${i}: ${JSON.stringify(s.given)} (root ${s.root === wsLink ? "wslink" : "ws"}${s.home ? `, ~ = ${s.home}` : ""}${s.selected ? `, ${s.selected} selected` : ""}): gate ${JSON.stringify(gate)}, landing says ${JSON.stringify(expected)}`,
          );
        }
      }
      expect(differ.slice(0, 20), `${differ.length} of ${COUNT} verdicts differ`).toEqual([]);
      // the generator reaches every kind of answer, so the agreement is not an agreement on "deny" alone
      for (const k of [
        "allow:in-scope",
        "allow:exempt",
        "deny:outside-workspace",
        "deny:bad-path",
        "deny:intent-not-in-progress",
        "deny:out-of-scope",
        "deny:no-active-intent",
        "ask:rule-file",
      ])
        expect(kinds.get(k) ?? 0, k).toBeGreaterThan(0);
      // nothing the writes created is left behind (the gate's own catalogue cache aside)
      expect(walk(outer).filter((p) => !initial.has(p) && !p.includes("/.orchestration/.cache"))).toEqual([]);
    },
    SOAK ? 1_800_000 : 120_000,
  );
});
