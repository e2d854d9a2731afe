/**
 * Agent Trace v0.1.0 records as intent-lsp writes them (docs/LEDGER.md), plus our metadata namespace.
 * The JSON Schema in `shared/schema/trace-record.schema.json` is the authority; these types follow it and
 * narrow only where intent-lsp always writes a field. Readers must not assume other tools write these shapes
 * (see `server/src/engine/ledger/read.ts` for the lenient side).
 */
import type { ContributorType } from "./settings";

export type { ContributorType };

export const AGENT_TRACE_VERSION = "0.1.0";
/** Key of our vendor namespace under `metadata`; reverse-DNS as the spec recommends. */
export const METADATA_KEY = "dev.intent-lsp";
export const TOOL_NAME = "intent-lsp";
export const SESSION_URN_PREFIX = "urn:intent-lsp:session:";
export const INTENT_URN_PREFIX = "urn:intent:";

export const MUTATION_CLASSES = ["FILE_CREATION", "FILE_DELETION", "AST_REFACTOR", "INTENT_EVOLUTION", "CONFIGURATION", "BUG_FIX", "DOCUMENTATION"] as const;
export type MutationClass = (typeof MUTATION_CLASSES)[number];

/** Outcome of the scope check at the time of the write (a record is written even when out of scope). */
export const SCOPE_VERDICTS = ["PASS", "OUT_OF_SCOPE", "NO_INTENT", "INTENT_NOT_IN_PROGRESS", "EXEMPT", "UNCHECKED"] as const;
export type ScopeVerdict = (typeof SCOPE_VERDICTS)[number];

export type VcsType = "git" | "jj" | "hg" | "svn";

export interface Vcs {
  type: VcsType;
  revision: string;
}

export interface Tool {
  name?: string;
  version?: string;
}

export interface Contributor {
  type: ContributorType;
  /** models.dev convention, e.g. `anthropic/claude-sonnet-4-5`; at most 250 chars. */
  model_id?: string;
}

export interface Range {
  /** 1-based, inclusive. */
  start_line: number;
  /** 1-based, inclusive. */
  end_line: number;
  /** `sha256:<hex>` over the range's normalized lines (see `server/src/engine/hashing.ts`). */
  content_hash?: string;
  contributor?: Contributor;
}

export interface RelatedResource {
  type: string;
  url: string;
}

export interface Conversation {
  url?: string;
  contributor?: Contributor;
  ranges: Range[];
  related?: RelatedResource[];
}

export interface TraceFile {
  path: string;
  conversations: Conversation[];
}

/** Our metadata, under `metadata["dev.intent-lsp"]`. */
export interface IntentLspMetadata {
  intent_id: string | null;
  mutation_class: MutationClass;
  /** Whole-file hash before the change; null when the file did not exist. */
  pre_hash: string | null;
  /** Whole-file hash of the content the line numbers refer to; null when the file was deleted. */
  post_hash: string | null;
  scope: ScopeVerdict;
  /**
   * `sha256:` of the previous ledger line's bytes as the writer saw them; null when the writer found the
   * ledger empty. Filled in by the appender, never by the record builder.
   */
  prev?: string | null;
  /**
   * Short per-line hashes (see `lineHash`), one array per range of `files[0].conversations[0].ranges`, in the
   * same order. They let a reader re-anchor single lines after part of a range was edited.
   */
  line_hashes?: string[][];
  /**
   * The line map (intent-lsp 0.2+): how the file's lines got from the content `pre_hash` pins to the content
   * `post_hash` pins. `line_count` lines after the change; `carried` lists `[old_start, new_start, length]`
   * (1-based) of lines carried over unchanged or only reformatted, so every line not carried is in `ranges`
   * and every carried line keeps the owner it had before this record. Readers replay these maps along the
   * chain of records (each `pre_hash` is the previous record's `post_hash`) to know every line's owner
   * exactly, without guessing from content.
   */
  line_count?: number;
  carried?: [number, number, number][];
  /** Carried lines whose whitespace changed (1-based `[start, end]`): reformatted, owner kept. */
  reformatted?: [number, number][];
  /** Per-line hashes of the `reformatted` spans, as `line_hashes` are for `ranges`. */
  reformatted_hashes?: string[][];
  /**
   * The file's content came from another path (docs/LEDGER.md "Renames, moves and copies"): a rename or a
   * move seen as it happened (the editor's file operations, an agent's move tool or shell command). `pre_hash`
   * is then the content of that path before the move, so the chain of records continues from its records.
   */
  moved_from?: string;
  /**
   * An agent's write recorded after another writer changed the file (a person's save of the reloaded file):
   * the hash of the content on disk when the record was made, which is not the content the tool wrote.
   * `post_hash` and the line map are the tool's own content; the other writer's lines are not in `ranges`.
   */
  on_disk_hash?: string;
  /**
   * Lines taken from other files (cut or copied there, pasted here), which keep the author they had there:
   * `from` the path, `pre_hash` the content of that path they are numbered in (pinned by a record of it),
   * `carried` `[old_start, new_start, length]` runs (1-based) from that content to this one. These lines are
   * neither in `ranges` nor in the top-level `carried`.
   */
  moved_lines?: MovedLinesMetadata[];
  /**
   * Ranges the person did not type, though their editor reported them as the person's (docs/LEDGER.md
   * "Lines the editor cannot credit"): `[start_line, end_line, why]`, 1-based, each one of `ranges` whose
   * `contributor` is `unknown`. `why` is one of intent-lsp's fixed sentences.
   */
  untyped?: [number, number, string][];
  /** The same details for `files[1..]`, when one act wrote several files (a shell command). */
  other_files?: OtherFileMetadata[];
  /** The agent tool call that made the change, when it was not a plain file write (a shell command). */
  tool_call?: ToolCallMetadata;
  /**
   * A re-attribution: the content is unchanged (`pre_hash` = `post_hash`) and `ranges` are lines written
   * earlier, claimed again under this record's intent; the ids of the records that explained them before
   * (empty: no record did). Those records stay as they are (docs/LEDGER.md "Re-attribution").
   */
  reattributes?: string[];
  /** The person behind a human contributor's change (docs/LEDGER.md "The person"); absent for agents. */
  person?: PersonMetadata;
  /**
   * A lifecycle record (docs/LEDGER.md "Lifecycle records"): an intent's move, with no `files`. `vcs.revision`
   * is the commit the move was made at; `verification` the acceptance criteria checked before a COMPLETE.
   */
  lifecycle?: LifecycleMetadata;
}

export interface LifecycleMetadata {
  from: string;
  to: string;
  verification?: VerificationMetadata;
}

/** What was checked before an intent became COMPLETE (`intent complete`, the editor's "Complete"). */
export interface VerificationMetadata {
  /** `skipped`: the person asked to complete without checking (`--skip-verify`); `criteria` is then empty. */
  result: "passed" | "skipped";
  criteria: CriterionCheckMetadata[];
  /** Who confirmed the sentences and asked for the move (git's identity, as `person`). */
  confirmed_by?: PersonMetadata;
}

export type CriterionCheckMetadata =
  | { kind: "run"; name: string; run: string; exit_code: number | null; timed_out: boolean; duration_ms: number; passed: boolean }
  | { kind: "confirm"; text: string; confirmed: boolean; how: "prompt" | "--yes" | "editor" };

/**
 * Who the human contributor is, from the editor's `identity` settings or git's `user.name` / `user.email`.
 * Agent Trace's contributor has no field for a name, so it lives in our metadata.
 */
export interface PersonMetadata {
  name?: string;
  /** The address as configured, when `identity.recordEmail` is "plain". */
  email?: string;
  /** `sha256:` + hex SHA-256 of the trimmed, lower-cased address, when `identity.recordEmail` is "hash". */
  email_hash?: string;
}

/** Per-file details of a record's second and later files; the first file's sit at the top level. */
export interface OtherFileMetadata {
  mutation_class: MutationClass;
  pre_hash: string | null;
  post_hash: string | null;
  scope: ScopeVerdict;
  line_hashes?: string[][];
  line_count?: number;
  carried?: [number, number, number][];
  reformatted?: [number, number][];
  reformatted_hashes?: string[][];
  moved_from?: string;
  on_disk_hash?: string;
  moved_lines?: MovedLinesMetadata[];
  untyped?: [number, number, string][];
}

export interface MovedLinesMetadata {
  from: string;
  pre_hash: string;
  carried: [number, number, number][];
}

export interface ToolCallMetadata {
  /** The agent's name for the tool (`Bash`, `run_terminal_cmd`, …). */
  tool: string;
  /** The shell command, for shell tools. */
  command?: string;
}

export interface TraceMetadata {
  [METADATA_KEY]?: IntentLspMetadata;
  [vendorKey: string]: unknown;
}

export interface TraceRecord {
  version: string;
  id: string;
  timestamp: string;
  vcs?: Vcs;
  tool?: Tool;
  files: TraceFile[];
  metadata?: TraceMetadata;
}
