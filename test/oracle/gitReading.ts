import { createHash } from "node:crypto";
import type { Outcome } from "./compare";
import { fileText, type Owner, type TruthLine } from "./truth";

/**
 * git's reading of moved lines, a check of the seeded oracle independent of the generator's account of a
 * move: after every commit, `git blame -w -C -C --line-porcelain HEAD` names for each line the commit, path
 * and line it came from; the owner that line had when the workspace held that content is git's reading of
 * the line's owner. The workspace's content at every step's end is kept by blob id (`BlobOwners`), so a
 * commit git names — made at a step's start or end, or rewritten by a rebase — is found by the blob its tree
 * holds for the path.
 */

/** The git blob id of a file's bytes, as `git hash-object` computes it. */
export function blobId(text: string): string {
  const bytes = Buffer.from(text, "utf8");
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** Each file content the workspace held at a step's end, with its lines' owners then. */
export class BlobOwners {
  /** blob → owner per line; null where two moments held the same content with different owners at that line. */
  private readonly owners = new Map<string, (Owner | null)[]>();
  /** blob → the lines (0-based) whose text, spaces aside (git blame -w), occurs more than once in it. */
  private readonly repeated = new Map<string, ReadonlySet<number>>();

  remember(lines: readonly TruthLine[]): string {
    const blob = blobId(fileText(lines));
    const now = lines.map((l) => l.owner);
    const seen = this.owners.get(blob);
    if (!seen) {
      this.owners.set(blob, now);
      this.repeated.set(blob, repeatedLines(lines.map((l) => l.text)));
    } else
      seen.forEach((o, i) => {
        if (o && !sameOwnerExactly(o, now[i]!)) seen[i] = null;
      });
    return blob;
  }

  /** Whether line `line` (1-based) of that content has a twin in it, spaces aside: git may have taken either. */
  repeatedAt(blob: string, line: number): boolean {
    return this.repeated.get(blob)?.has(line - 1) ?? false;
  }

  /** The owner of line `line` (1-based) of that content; null when two moments disagree, undefined when never held. */
  ownerAt(blob: string, line: number): Owner | null | undefined {
    const owners = this.owners.get(blob);
    return owners ? owners[line - 1] : undefined;
  }
}

/** The lines (0-based) whose text, every space removed, occurs more than once among `texts`. */
export function repeatedLines(texts: readonly string[]): ReadonlySet<number> {
  const count = new Map<string, number>();
  const keys = texts.map((t) => t.replace(/\s+/g, ""));
  for (const k of keys) count.set(k, (count.get(k) ?? 0) + 1);
  return new Set(keys.flatMap((k, i) => (count.get(k)! > 1 ? [i] : [])));
}

function sameOwnerExactly(a: Owner, b: Owner): boolean {
  return a.type === b.type && a.modelId === b.modelId && a.intentId === b.intentId && !a.unrecorded === !b.unrecorded;
}

/** Where git says a line of the blamed file came from. */
export interface GitOrigin {
  /** 1-based, in the blamed file. */
  line: number;
  commit: string;
  path: string;
  /** 1-based, in `path` at `commit`. */
  origLine: number;
}

/** `git blame --line-porcelain` output: one origin per line of the blamed file, in order. */
export function parseLinePorcelain(out: string): GitOrigin[] {
  const origins: GitOrigin[] = [];
  let current: Omit<GitOrigin, "path"> | undefined;
  let path = "";
  for (const line of out.split("\n")) {
    if (line.startsWith("\t")) {
      if (!current) throw new Error("oracle: git blame --line-porcelain gave a line's content before its header");
      origins.push({ ...current, path });
      current = undefined;
      continue;
    }
    const header = /^([0-9a-f]{40}) (\d+) (\d+)(?: \d+)?$/.exec(line);
    if (header) current = { commit: header[1]!, origLine: Number(header[2]), line: Number(header[3]) };
    else if (line.startsWith("filename ")) path = line.slice("filename ".length);
  }
  return origins;
}

/** A line's judgement against git's reading: the outcome, or why git's reading could not be taken. */
export type GitJudgement = { outcome: Outcome } | { skipped: "never-held" | "two-owners" };

/** The tally of one row of the git-reading table. */
export interface GitTally {
  /** Moved lines whose text (spaces aside) is unique in their file and in the one git names, blamed by git to another path. */
  detected: number;
  /** Of those, judged against git's reading by outcome (intent blame). */
  outcomes: Record<Outcome, number>;
  /** Of those open in the editor at that moment: hovers asked, and hovers equal to git's reading. */
  hoverAsked: number;
  hoverAgrees: number;
  /** Of those, where the generator's truth equals git's reading. */
  truthAgrees: number;
  /** Moved lines git blames to their own path (its copy detection did not fire), or whose text repeats in either file. */
  notDetected: number;
  /** Detected lines whose origin content the workspace never held at a step's end, or held with two owners. */
  skipped: number;
}

export const emptyGitTally = (): GitTally => ({
  detected: 0,
  outcomes: { correct: 0, wrong: 0, swap: 0, untraced: 0, edited: 0, other: 0 },
  hoverAsked: 0,
  hoverAgrees: 0,
  truthAgrees: 0,
  notDetected: 0,
  skipped: 0,
});
