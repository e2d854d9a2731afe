/**
 * git-ai's authorship notes (the Git AI Standard v3, schema `authorship/3.0.0`; docs/LEDGER.md "git-ai
 * notes"), read as one more ledger dialect. A note is attached to one commit under `refs/notes/ai` and lists,
 * per file, the lines of the file as it is in that commit that one session (or prompt, or known person) wrote:
 *
 *     src/main.rs
 *       s_c9883b05a2487d::t_9f8e7d6c5b4a32 1-10,15-20
 *       h_31dce776f88375 42-50
 *     ---
 *     {"schema_version": "authorship/3.0.0", "base_commit_sha": "…", "prompts": {}, "sessions": {…}, "humans": {…}}
 *
 * Keys: `s_<id>::t_<id>` names a session (`sessions`), `h_<id>` a person seen typing (`humans`), any other a
 * prompt (`prompts`, notes before git-ai 1.4). Lines a note does not list are of unknown origin, not a
 * person's. Pure: the text in, the attributions out.
 */

export const GIT_AI_SCHEMA = "authorship/3.0.0";

/** Who wrote the lines of one key. */
export type GitAiAuthor = { kind: "agent"; tool: string; model?: string; conversation?: string; key: string } | { kind: "person"; author: string; key: string };

export interface GitAiFileLines {
  path: string;
  /** Each key's lines, in the note's order: 1-based inclusive `[start, end]` runs, as listed (not sorted). */
  entries: { key: string; author: GitAiAuthor; ranges: [number, number][] }[];
}

export interface GitAiNote {
  schemaVersion: string;
  gitAiVersion?: string;
  files: GitAiFileLines[];
}

/** The most lines a note may claim for a line number (the ledger's own limit, read.ts MAX_LINE). */
const MAX_LINE = 5_000_000;

export class GitAiNoteError extends Error {}

/** A note's text read, or the first thing wrong with it (with its line). */
export function parseGitAiNote(text: string): GitAiNote {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const divider = lines.indexOf("---");
  if (divider === -1) throw new GitAiNoteError("no `---` line between the attestations and the metadata");
  const meta = metadataOf(lines.slice(divider + 1).join("\n"));
  const files: GitAiFileLines[] = [];
  let current: { path: string; entries: { key: string; ranges: [number, number][] }[] } | undefined;
  for (let i = 0; i < divider; i++) {
    const line = lines[i]!;
    if (line.trim() === "") continue;
    if (line.startsWith("  ")) {
      if (!current) throw new GitAiNoteError(`line ${i + 1}: an attestation before any file`);
      const body = line.slice(2);
      const space = body.indexOf(" ");
      if (space <= 0) throw new GitAiNoteError(`line ${i + 1}: an attestation is "<key> <ranges>"`);
      current.entries.push({ key: body.slice(0, space), ranges: rangesOf(body.slice(space + 1), i + 1) });
    } else {
      current = { path: line.length > 1 && line.startsWith('"') && line.endsWith('"') ? line.slice(1, -1) : line, entries: [] };
      files.push(current as GitAiFileLines);
    }
  }
  return {
    schemaVersion: meta.schemaVersion,
    ...(meta.gitAiVersion ? { gitAiVersion: meta.gitAiVersion } : {}),
    files: files.filter((f) => f.entries.length).map((f) => ({ path: f.path, entries: f.entries.map((e) => ({ ...e, author: meta.authorOf(e.key) })) })),
  };
}

function rangesOf(text: string, lineNo: number): [number, number][] {
  return text
    .trim()
    .split(",")
    .map((part) => {
      const m = /^(\d+)(?:-(\d+))?$/.exec(part);
      if (!m) throw new GitAiNoteError(`line ${lineNo}: "${part}" is not a line or a range of lines`);
      const start = Number(m[1]);
      const end = m[2] === undefined ? start : Number(m[2]);
      if (start < 1 || end < start || end > MAX_LINE) throw new GitAiNoteError(`line ${lineNo}: "${part}" is not a range of lines 1 to ${MAX_LINE}`);
      return [start, end] as [number, number];
    });
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

function metadataOf(text: string): { schemaVersion: string; gitAiVersion?: string; authorOf(key: string): GitAiAuthor } {
  let meta: unknown;
  try {
    meta = JSON.parse(text);
  } catch (e) {
    throw new GitAiNoteError(`the metadata after \`---\` is not JSON (${(e as Error).message})`);
  }
  if (!isObject(meta)) throw new GitAiNoteError("the metadata after `---` is not a JSON object");
  const schemaVersion = str(meta["schema_version"]);
  if (!schemaVersion?.startsWith("authorship/3.")) throw new GitAiNoteError(`schema_version ${JSON.stringify(meta["schema_version"])} is not ${GIT_AI_SCHEMA}`);
  const table = (name: string): Json => (isObject(meta[name]) ? (meta[name] as Json) : {});
  const [sessions, prompts, humans] = [table("sessions"), table("prompts"), table("humans")];
  const agent = (record: unknown, key: string): GitAiAuthor => {
    const id = isObject(record) && isObject(record["agent_id"]) ? (record["agent_id"] as Json) : undefined;
    const tool = str(id?.["tool"]);
    if (!tool) throw new GitAiNoteError(`the attestation key ${key} names no agent in the metadata`);
    const model = str(id?.["model"]);
    const conversation = str(id?.["id"]);
    return { kind: "agent", tool, ...(model && model !== "unknown" ? { model } : {}), ...(conversation ? { conversation } : {}), key };
  };
  return {
    schemaVersion,
    ...(str(meta["git_ai_version"]) ? { gitAiVersion: str(meta["git_ai_version"])! } : {}),
    authorOf(key) {
      if (key.startsWith("h_")) {
        const author = isObject(humans[key]) ? str((humans[key] as Json)["author"]) : undefined;
        if (!author) throw new GitAiNoteError(`the attestation key ${key} names no person in the metadata`);
        return { kind: "person", author, key };
      }
      if (key.startsWith("s_")) return agent(sessions[key.split("::")[0]!], key);
      return agent(prompts[key], key);
    },
  };
}

/** `Name <email>` (or a bare name, or a bare address) as its parts. */
export function authorParts(author: string): { name?: string; email?: string } {
  const m = /^(.*?)\s*<([^>]*)>\s*$/.exec(author);
  if (m) return { ...(m[1] ? { name: m[1] } : {}), ...(m[2] ? { email: m[2] } : {}) };
  return author.includes("@") && !author.includes(" ") ? { email: author } : { name: author };
}
