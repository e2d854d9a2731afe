/**
 * The sealed history's manifest (docs/LEDGER.md "Segments"): the working-tree file that names every sealed
 * segment a branch's ledger reads, while the segments themselves live as blobs under the ref
 * `refs/intent/ledger`. One line per segment, `<name> <blob> <lines> <from> <until>`: the segment's SHA-256
 * (its name), the git object that holds it, and what it covers, so that a clone that lacks the object can
 * say which records it is missing. Lines are independent and never edited, so `merge=union` merges two
 * branches' manifests; a segment named twice is read once.
 */
import { SEGMENT_NAME } from "./segment";

export const MANIFEST_HEADER =
  "# Sealed ledger segments, stored under refs/intent/ledger (`intent ledger fetch` brings them; docs/LEDGER.md). One per line: name, git blob, lines, first and last timestamp.";

export interface ManifestEntry {
  /** The segment's name: the SHA-256 of its bytes. */
  name: string;
  /** The git blob that holds those bytes (SHA-1 or SHA-256 repository). */
  blob: string;
  lines: number;
  from: string | null;
  until: string | null;
  /** 1-based line of the manifest that names it first. */
  line: number;
}

export interface ParsedManifest {
  entries: ManifestEntry[];
  /** Lines that are neither an entry, a comment nor blank: 1-based line and what is wrong. */
  problems: { line: number; message: string }[];
}

const BLOB = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const STAMP = /^[0-9T:.+\-Z]{1,40}$/;

export function parseManifest(text: string): ParsedManifest {
  const entries: ManifestEntry[] = [];
  const problems: ParsedManifest["problems"] = [];
  const seen = new Set<string>();
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/\r$/, "").trim();
    if (!line || line.startsWith("#")) return;
    const [name = "", blob = "", lines = "", from = "-", until = "-"] = line.split(/\s+/);
    if (!SEGMENT_NAME.test(name) || !BLOB.test(blob) || !/^\d{1,9}$/.test(lines) || ![from, until].every((s) => s === "-" || STAMP.test(s))) {
      problems.push({ line: i + 1, message: "not a segment entry (name, git blob, lines, first and last timestamp); restore the file from git" });
      return;
    }
    if (seen.has(name)) return;
    seen.add(name);
    entries.push({ name, blob, lines: Number(lines), from: from === "-" ? null : from, until: until === "-" ? null : until, line: i + 1 });
  });
  return { entries, problems };
}

/** The manifest's text for these entries, oldest sealed first as given. */
export function formatManifest(entries: readonly Omit<ManifestEntry, "line">[]): string {
  return `${[MANIFEST_HEADER, ...entries.map((e) => `${e.name} ${e.blob} ${e.lines} ${e.from ?? "-"} ${e.until ?? "-"}`)].join("\n")}\n`;
}

/** Which records these segments hold, for a message about them: "segment 1f0c… (18000 lines, 2026-01-03 to 2026-01-31)". */
export function describeEntries(entries: readonly Pick<ManifestEntry, "name" | "lines" | "from" | "until">[]): string {
  const lines = entries.reduce((n, e) => n + e.lines, 0);
  // ISO 8601 timestamps order as text
  const froms = entries.flatMap((e) => (e.from ? [e.from] : [])).sort();
  const untils = entries.flatMap((e) => (e.until ? [e.until] : [])).sort();
  const span = froms.length && untils.length ? `, ${froms[0]!.slice(0, 10)} to ${untils[untils.length - 1]!.slice(0, 10)}` : "";
  const what = entries.length === 1 ? `segment ${entries[0]!.name.slice(0, 12)}` : `${entries.length} segments`;
  return `${what} (${lines} line${lines === 1 ? "" : "s"}${span})`;
}
