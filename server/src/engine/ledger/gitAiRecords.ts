/**
 * git-ai's notes as Agent Trace records (`intent import git-ai`; docs/LEDGER.md "git-ai notes"): one record
 * per note, file and key, made only of what the note and the commit it is attached to say, so the same notes
 * always give the same records, byte for byte (the appender adds `prev`, which depends on the ledger). The
 * ranges are the lines of the file as it is in that commit; each carries the content hash of those lines
 * and per-line hashes, so a reader finds them again by content wherever they are now (contentAnchors.ts):
 * the records have no line map, because the note says nothing of the lines around them.
 */
import { createHash } from "node:crypto";
import { AGENT_TRACE_VERSION, METADATA_KEY, SESSION_URN_PREFIX, type TraceRecord } from "@shared/agentTrace";
import type { Identity } from "@shared/settings";
import { normalizeModelId, personOf } from "../contributor";
import { contentHash, fileHash, lineHash } from "../hashing";
import { textLines } from "../lines";
import { authorParts, type GitAiAuthor, type GitAiNote } from "./gitAiNote";

/** A note with what it refers to: the commit it is attached to, that commit's time, its files' content there. */
export interface NoteAtCommit {
  commit: string;
  /** The commit's committer date, ISO 8601 in UTC: the records' time. */
  time: string;
  note: GitAiNote;
  /** A file's content in that commit; undefined where the commit has no such file. */
  content(path: string): string | undefined;
}

/** The provider a git-ai tool's models come from, where its model ids do not say. */
const PROVIDER_OF_TOOL: Record<string, string> = { claude: "anthropic", codex: "openai", gemini: "google" };

export interface ImportedRecords {
  records: TraceRecord[];
  /** What of the note could not be recorded, and why (a file the commit does not have, lines past its end). */
  skipped: string[];
}

export function gitAiRecords(n: NoteAtCommit, identity: Pick<Identity, "recordEmail">): ImportedRecords {
  const records: TraceRecord[] = [];
  const skipped: string[] = [];
  for (const file of n.note.files) {
    const text = n.content(file.path);
    if (text === undefined) {
      skipped.push(`${file.path}: commit ${n.commit.slice(0, 12)} has no such file`);
      continue;
    }
    // git's lines: a final line break ends the last line, it does not start another
    const lines = textLines(text);
    for (const entry of file.entries) {
      const ranges = mergedRanges(entry.ranges);
      const past = ranges.find(([, end]) => end > lines.length);
      if (past) {
        skipped.push(`${file.path}: ${entry.key} claims line ${past[1]}, past the ${lines.length} lines the file has in commit ${n.commit.slice(0, 12)}`);
        continue;
      }
      records.push(recordOf(n, file.path, text, lines, entry.author, ranges, identity));
    }
  }
  return { records, skipped };
}

function recordOf(
  n: NoteAtCommit,
  path: string,
  text: string,
  lines: readonly string[],
  author: GitAiAuthor,
  ranges: readonly [number, number][],
  identity: Pick<Identity, "recordEmail">,
): TraceRecord {
  const person = author.kind === "person" ? personOf({ recordEmail: identity.recordEmail }, authorParts(author.author)) : undefined;
  const session = author.kind === "agent" ? author.key.split("::")[0]! : author.key;
  return {
    version: AGENT_TRACE_VERSION,
    id: importedId(n.commit, path, author.key),
    timestamp: n.time,
    vcs: { type: "git", revision: n.commit },
    tool: { name: "git-ai", ...(n.note.gitAiVersion ? { version: n.note.gitAiVersion.slice(0, 100) } : {}) },
    files: [
      {
        path,
        conversations: [
          {
            url: `${SESSION_URN_PREFIX}git-ai-${encodeURIComponent(session)}`,
            contributor: author.kind === "agent" ? { type: "ai", ...modelOf(author) } : { type: "human" },
            ranges: ranges.map(([start, end]) => ({ start_line: start, end_line: end, content_hash: contentHash(lines.slice(start - 1, end)) })),
          },
        ],
      },
    ],
    metadata: {
      [METADATA_KEY]: {
        intent_id: null,
        mutation_class: "INTENT_EVOLUTION",
        // the note says nothing of the file before the commit: no line map, only the lines it lists
        pre_hash: null,
        post_hash: fileHash(text),
        scope: "UNCHECKED",
        line_hashes: ranges.map(([start, end]) => lines.slice(start - 1, end).map(lineHash)),
        ...(person ? { person } : {}),
        imported: {
          from: "git-ai",
          ref: "refs/notes/ai",
          commit: n.commit,
          key: author.key,
          schema_version: n.note.schemaVersion,
          ...(author.kind === "agent" ? { agent: author.tool, ...(author.conversation ? { conversation: author.conversation.slice(0, 200) } : {}) } : {}),
        },
      },
    },
  } as TraceRecord;
}

function modelOf(author: Extract<GitAiAuthor, { kind: "agent" }>): { model_id?: string } {
  const model = normalizeModelId(author.model, PROVIDER_OF_TOOL[author.tool]);
  return model ? { model_id: model } : {};
}

/** A key's runs sorted and joined where they touch or overlap (notes may list them in any order). */
function mergedRanges(ranges: readonly [number, number][]): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [start, end] of sorted) {
    const last = out[out.length - 1];
    if (last && start <= last[1] + 1) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

/** The same note, file and key always give the same id: a UUID (version 8) of their SHA-256. */
export function importedId(commit: string, path: string, key: string): string {
  const h = createHash("sha256").update(`intent-lsp import git-ai\0${commit}\0${path}\0${key}`).digest("hex");
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
