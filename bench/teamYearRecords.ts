/**
 * The team-year's records: a team of people and agents editing a 20,000-file workspace, each write a record
 * built by the product's own record builder (engine/ledger/record.ts) with the line map its save or hook
 * writes (engine/lineChange.ts), chained by `prev` as the appender chains them. Deterministic (seeded).
 */
import { METADATA_KEY, type IntentLspMetadata } from "@shared/agentTrace";
import { buildRecord } from "../server/src/engine/ledger/record";
import { bytesHash, fileHash } from "../server/src/engine/hashing";
import { diffTexts } from "../server/src/engine/lineChange";

export const TEAM_YEAR_FILES = 20_000;
/** 10 people with agents, ~10,000 records a working day, 250 days. */
export const TEAM_YEAR_RECORDS = 2_500_000;

const MODELS = ["anthropic/claude-sonnet-4-5", "openai/gpt-5", "google/gemini-2.5-pro", "anthropic/claude-opus-4-1"];
const PEOPLE = [
  "Ada Lovelace",
  "Grace Hopper",
  "Alan Turing",
  "Barbara Liskov",
  "Edsger Dijkstra",
  "Frances Allen",
  "Ken Thompson",
  "Radia Perlman",
  "Donald Knuth",
  "Margaret Hamilton",
];
const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"];

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function teamYearPath(file: number): string {
  return `packages/mod${String(Math.floor(file / 40)).padStart(3, "0")}/src/file${String(file % 40).padStart(2, "0")}.ts`;
}

/**
 * Yields `count` ledger lines (JSON text, no newline) in append order, one record each, starting on
 * `start` with a record every 30 s on average.
 */
export function* teamYearLines(
  count: number,
  files = TEAM_YEAR_FILES,
  start = Date.parse("2026-01-05T08:00:00Z"),
  finalContents?: Map<string, string>,
): Generator<string> {
  const rand = seeded(21);
  const contents = new Map<number, string[]>();
  const hashes = new Map<number, string>();
  let serial = 0;
  const text = (f: number) => `  const v${serial++} = ${WORDS[Math.floor(rand() * WORDS.length)]}(${f}, ${Math.floor(rand() * 1000)});`;
  let prev: string | null = null;
  let session = "";
  let time = start;
  for (let r = 0; r < count; r++) {
    const u = rand();
    const file = rand() < 0.5 ? Math.floor(u * u * files) : Math.floor(u * files);
    let lines = contents.get(file);
    if (!lines) {
      lines = Array.from({ length: 30 + Math.floor(rand() * 50) }, () => text(file));
      contents.set(file, lines);
      hashes.set(file, fileHash(`${lines.join("\n")}\n`));
    }
    const before = `${lines.join("\n")}\n`;
    const at = Math.floor(rand() * lines.length);
    const len = 1 + Math.floor(rand() ** 2 * 6);
    if (rand() < 0.3) lines.splice(at, 0, ...Array.from({ length: len }, () => text(file)));
    else for (let i = at; i < Math.min(lines.length, at + len); i++) lines[i] = text(file);
    const after = `${lines.join("\n")}\n`;
    if (r % 40 === 0) session = `${Math.floor(rand() * 1e9).toString(16)}-${Math.floor(rand() * 1e9).toString(16)}`;
    const human = rand() < 0.2;
    const person = PEOPLE[Math.floor(rand() * PEOPLE.length)]!;
    const module = Math.floor(file / 40);
    time += Math.floor(rand() * 60_000);
    const record = buildRecord({
      path: teamYearPath(file),
      content: after,
      change: diffTexts(before, after),
      contributor: human ? { type: "human" } : { type: "ai", modelId: MODELS[Math.floor(rand() * MODELS.length)]! },
      person: human ? { name: person, email_hash: bytesHash(`${person}@example.com`) } : undefined,
      sessionId: session,
      toolVersion: "0.1.0",
      mutationClass: "INTENT_EVOLUTION",
      preHash: hashes.get(file)!,
      scope: rand() < 0.9 ? "PASS" : "OUT_OF_SCOPE",
      intentId: `INT-${String(module).padStart(3, "0")}`,
      revision: bytesHash(`rev${Math.floor(r / 100)}`).slice(7, 47),
      now: new Date(time),
      id: uuid(rand),
    });
    const ours = record.metadata![METADATA_KEY] as IntentLspMetadata;
    ours.prev = prev;
    hashes.set(file, ours.post_hash!);
    const line = JSON.stringify(record);
    prev = bytesHash(line);
    yield line;
  }
  if (finalContents) for (const [file, lines] of contents) finalContents.set(teamYearPath(file), `${lines.join("\n")}\n`);
}

function uuid(rand: () => number): string {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join("");
  return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
}
