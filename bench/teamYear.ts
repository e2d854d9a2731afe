/**
 * The team-year section of `npm run bench` (docs/LEDGER.md "Segments"): records built by the product's record
 * builder over a 20,000-file workspace (bench/teamYearRecords.ts), sealed by `intent ledger compact` into
 * `refs/intent/ledger`, and measured: bytes a record as JSONL, gzip -9 and in a segment; the working tree's
 * ledger (the live file and the manifest) and a fresh clone after `git gc` with the sealed history fetched,
 * before and after compaction; `intent blame` and `intent stats` on the compacted ledger. The team-year's
 * 2.5 M records are not generated here (hours of record building on this machine): their sizes are the
 * measured bytes a record times 2.5 M, and say so.
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { REPO_ROOT } from "../scripts/lspClient";
import type { Figure, Options } from "./figures";
import { timeProcess } from "./measure";
import { TEAM_YEAR_FILES, TEAM_YEAR_RECORDS, teamYearLines } from "./teamYearRecords";

const CLI = join(REPO_ROOT, "dist/cli.js");
const LEDGER = ".orchestration/agent_trace.jsonl";
const MANIFEST = ".orchestration/agent_trace.sealed";
const SEALED_REF = "refs/intent/ledger";
const WORKING_TREE_TARGET_MB = 50;
const CLONE_TARGET_MB = 150;
const HISTORY_COMMITS = 20;
/**
 * The live file at its largest when a team compacts every working day with the default `--keep-days 3`:
 * four working days at 10,000 records a day, just before a compaction.
 */
const LIVE_RECORDS_YEAR = 40_000;
/** Segments a year of daily compactions writes (a month boundary splits one more each month). */
const SEGMENTS_YEAR = 250 + 12;

const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@intent-lsp.local", "-c", "init.defaultBranch=main", ...args], {
    cwd,
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
}

function gitBytes(cwd: string, ...args: string[]): Buffer {
  return execFileSync("git", args, { cwd, maxBuffer: 1 << 30 });
}

function bytesUnder(path: string): number {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((n, e) => n + bytesUnder(join(path, e)), 0);
}

/**
 * A repository whose ledger grew over HISTORY_COMMITS commits (as a team commits its ledger with its code),
 * measured as a fresh `git clone --no-local` (its .git and working tree) after `git gc --aggressive`.
 */
class LedgerRepo {
  readonly dir = mkdtempSync(join(tmpdir(), "intent-teamyear-repo-"));

  constructor(ledger: Buffer) {
    git(this.dir, "init", "-q");
    mkdirSync(join(this.dir, ".orchestration"), { recursive: true });
    const ends: number[] = [];
    for (let at = ledger.indexOf(0x0a); at !== -1; at = ledger.indexOf(0x0a, at + 1)) ends.push(at + 1);
    for (let k = 1; k <= HISTORY_COMMITS; k++) {
      writeFileSync(join(this.dir, LEDGER), ledger.subarray(0, ends[Math.floor((ends.length * k) / HISTORY_COMMITS) - 1]));
      git(this.dir, "add", "-A");
      git(this.dir, "commit", "-q", "-m", `ledger ${k}`);
    }
  }

  /** Commits the workspace's ledger layout (the live file and the manifest) as it is now, and takes its sealed ref. */
  commitLayout(root: string): void {
    writeFileSync(join(this.dir, LEDGER), readFileSync(join(root, LEDGER)));
    writeFileSync(join(this.dir, MANIFEST), readFileSync(join(root, MANIFEST)));
    git(this.dir, "fetch", "-q", root, `${SEALED_REF}:${SEALED_REF}`);
    git(this.dir, "add", "-A");
    git(this.dir, "commit", "-q", "-m", "compacted");
  }

  /** Bytes of a fresh clone with the sealed history fetched (`intent ledger fetch`): its .git and its working tree's ledger. */
  cloneBytes(): { git: number; tree: number } {
    const clone = `${this.dir}-clone`;
    try {
      git(this.dir, "gc", "-q", "--aggressive");
      git(tmpdir(), "clone", "-q", "--no-local", this.dir, clone);
      if (git(this.dir, "for-each-ref", SEALED_REF).trim()) {
        git(clone, "fetch", "-q", "origin", `${SEALED_REF}:${SEALED_REF}`);
        git(clone, "gc", "-q");
      }
      const gitBytes = bytesUnder(join(clone, ".git"));
      return { git: gitBytes, tree: bytesUnder(clone) - gitBytes };
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export function teamYear(o: Options): Figure[] {
  const records = o.quick ? 20_000 : 200_000;
  const root = mkdtempSync(join(tmpdir(), "intent-teamyear-"));
  try {
    o.log(`    generating ${records.toLocaleString("en")} records over ${TEAM_YEAR_FILES.toLocaleString("en")} files through the record builder`);
    mkdirSync(join(root, ".orchestration"), { recursive: true });
    const intents = ["active_intents:"];
    for (let m = 0; m < TEAM_YEAR_FILES / 40; m++)
      intents.push(
        `  - id: INT-${String(m).padStart(3, "0")}`,
        `    name: Module ${m}`,
        "    status: IN_PROGRESS",
        `    owned_scope: ["packages/mod${String(m).padStart(3, "0")}/**"]`,
      );
    writeFileSync(join(root, ".orchestration/active_intents.yaml"), `${intents.join("\n")}\n`);
    const contents = new Map<string, string>();
    const fd = openSync(join(root, LEDGER), "w");
    const times: string[] = [];
    const stamp = (line: string) => {
      const at = line.indexOf('"timestamp":"') + 13;
      return line.slice(at, line.indexOf('"', at));
    };
    let batch: string[] = [];
    for (const line of teamYearLines(records, TEAM_YEAR_FILES, undefined, contents)) {
      batch.push(line);
      times.push(stamp(line));
      if (batch.length >= 2000) {
        writeSync(fd, `${batch.join("\n")}\n`);
        batch = [];
      }
    }
    if (batch.length) writeSync(fd, `${batch.join("\n")}\n`);
    closeSync(fd);
    for (const [path, text] of contents) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    git(root, "init", "-q");
    const jsonlBytes = statSync(join(root, LEDGER)).size;
    const gzipBytes = gzipSync(readFileSync(join(root, LEDGER)), { level: 9 }).length;
    const repo = new LedgerRepo(readFileSync(join(root, LEDGER)));
    const oldClone = repo.cloneBytes();

    // the newest tenth stays live; everything before it is sealed
    const cut = times[Math.floor(records * 0.9)]!;
    const hot = [...contents.keys()].sort()[0]!;
    const blameBefore = timeProcess(process.execPath, [CLI, "blame", hot], { cwd: root });
    const statsBefore = timeProcess(process.execPath, [CLI, "stats"], { cwd: root });
    const sealed = timeProcess(process.execPath, [CLI, "ledger", "compact", "--before", cut], { cwd: root, keepStdout: true });
    if (sealed.status !== 0) throw new Error(`intent ledger compact failed: ${sealed.stderr}`);
    o.log(`    ${sealed.stdout.trim()}`);
    const liveBytes = statSync(join(root, LEDGER)).size;
    const manifest = readFileSync(join(root, MANIFEST), "utf8").split("\n").slice(1).filter(Boolean);
    const manifestBytes = statSync(join(root, MANIFEST)).size;
    const blobs = manifest.map((entry) => gitBytes(root, "cat-file", "blob", entry.split(" ")[1]!));
    const segmentBytes = blobs.reduce((n, b) => n + b.length, 0);
    // the segment's binary column: the hashes, ids and line hashes, stored as bytes (random: nothing compresses them)
    const columnBytes = blobs.reduce((n, b) => {
      const nl = b.indexOf(0x0a);
      return n + b.length - (nl + 1) - (JSON.parse(b.subarray(0, nl).toString("utf8")) as { text_bytes: number }).text_bytes;
    }, 0);
    const sealedRecords = times.filter((t) => t < cut).length;
    repo.commitLayout(root);
    const newClone = repo.cloneBytes();
    repo.dispose();
    const verify = timeProcess(process.execPath, [CLI, "verify"], { cwd: root, keepStdout: true });
    const blameCold = timeProcess(process.execPath, [CLI, "blame", hot], { cwd: root });
    const blameWarm = timeProcess(process.execPath, [CLI, "blame", hot], { cwd: root });
    const statsWarm = timeProcess(process.execPath, [CLI, "stats"], { cwd: root });

    const perRecord = { jsonl: jsonlBytes / records, gzip: gzipBytes / records, segment: segmentBytes / sealedRecords, random: columnBytes / sealedRecords };
    const year = (b: number) => b * TEAM_YEAR_RECORDS;
    const label = `${TEAM_YEAR_RECORDS.toLocaleString("en")} records = measured bytes/record × count`;
    o.log(
      `    bytes/record: JSONL ${perRecord.jsonl.toFixed(0)}, gzip -9 ${perRecord.gzip.toFixed(0)}, segment ${perRecord.segment.toFixed(0)}; ` +
        `clone of the ledger alone (.git + working tree): JSONL ${mb(oldClone.git)} + ${mb(oldClone.tree)}, then compacted ${mb(newClone.git)} + ${mb(newClone.tree)}; ` +
        `verify: ${verify.stdout.trim().split("\n").pop()}`,
    );
    const data = {
      records,
      files: TEAM_YEAR_FILES,
      perRecord,
      jsonlBytes,
      liveBytes,
      manifestBytes,
      segmentBytes,
      columnBytes,
      oldClone,
      newClone,
      cut,
      historyCommits: HISTORY_COMMITS,
    };
    const fig = (id: string, now: string, baseline: string, ratio: string, target: string, met: boolean | null): Figure => ({
      id,
      records,
      now,
      baseline,
      ratio,
      target,
      met,
      data,
    });
    // the working tree holds the live file and the manifest (a line per segment); the segments are in git
    const manifestLine = manifestBytes / (manifest.length + 1);
    const treeYear = manifestLine * (SEGMENTS_YEAR + 1) + perRecord.jsonl * LIVE_RECORDS_YEAR;
    // the clone's history holds every record the live file ever held, plus the segments; its working tree is `treeYear`
    const cloneYear = year(newClone.git / records) + treeYear;
    const oldCloneYear = year(oldClone.git / records) + year(perRecord.jsonl);
    return [
      fig(
        "team-year bytes/record (segment vs JSONL)",
        `${perRecord.segment.toFixed(0)} B`,
        `${perRecord.jsonl.toFixed(0)} B (gzip -9 ${perRecord.gzip.toFixed(0)} B)`,
        `${(perRecord.segment / perRecord.jsonl).toFixed(3)}×`,
        "measured",
        null,
      ),
      fig(
        `team-year working-tree ledger (the manifest + a ${LIVE_RECORDS_YEAR.toLocaleString("en")}-record live file; segments in ${SEALED_REF}; ${label})`,
        mb(treeYear),
        mb(year(perRecord.jsonl)),
        `${(treeYear / year(perRecord.jsonl)).toFixed(3)}×`,
        `≤ ${WORKING_TREE_TARGET_MB} MB`,
        treeYear <= WORKING_TREE_TARGET_MB * 1e6,
      ),
      fig(
        `team-year clone after git gc with ${SEALED_REF} fetched, ledger committed in ${HISTORY_COMMITS} steps then compacted (${label})`,
        mb(cloneYear),
        mb(oldCloneYear),
        `${(cloneYear / oldCloneYear).toFixed(3)}×`,
        `≤ ${CLONE_TARGET_MB} MB`,
        cloneYear <= CLONE_TARGET_MB * 1e6,
      ),
      fig(
        `team-year clone floor: the random bytes of every record, once (the segments' hex column; ${label})`,
        mb(year(perRecord.random)),
        `${perRecord.random.toFixed(0)} B a record of ${perRecord.segment.toFixed(0)} B sealed`,
        `${(year(perRecord.random) / (CLONE_TARGET_MB * 1e6)).toFixed(2)}× the clone target`,
        "measured",
        null,
      ),
      fig(
        "team-year intent blame, cold after compaction (rebuilds the sealed copy)",
        `${blameCold.ms.toFixed(0)} ms`,
        `${blameBefore.ms.toFixed(0)} ms (JSONL, cold)`,
        `${(blameCold.ms / blameBefore.ms).toFixed(2)}×`,
        "measured",
        null,
      ),
      fig(
        "team-year intent blame, warm",
        `${blameWarm.ms.toFixed(0)} ms`,
        `${blameBefore.ms.toFixed(0)} ms (JSONL, cold)`,
        `${(blameWarm.ms / blameBefore.ms).toFixed(2)}×`,
        "measured",
        null,
      ),
      fig(
        "team-year intent stats, warm",
        `${statsWarm.ms.toFixed(0)} ms`,
        `${statsBefore.ms.toFixed(0)} ms (JSONL, cold)`,
        `${(statsWarm.ms / statsBefore.ms).toFixed(2)}×`,
        "measured",
        null,
      ),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
