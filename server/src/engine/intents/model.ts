/* The intent catalogue as the engine sees it, whatever dialect the YAML was written in (docs/INTENTS.md "What it reads and writes"). */

export const INTENT_STATUSES = ["PENDING", "IN_PROGRESS", "COMPLETE", "BLOCKED", "ARCHIVED"] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];

export const INTENT_ID_PATTERN = /^[A-Z]+-\d{3,}$/;

/** Byte offsets into the source text, end exclusive. */
export interface Span {
  start: number;
  end: number;
}

export interface RelatedSpec {
  type: string;
  ref: string;
}

/**
 * One item of `acceptance_criteria`: a sentence a person confirms, or a command run from the workspace root
 * that passes when it exits 0 (docs/INTENTS.md "Acceptance criteria").
 */
export type Criterion = { kind: "confirm"; text: string; line: number } | { kind: "run"; run: string; name?: string; timeoutSeconds: number; line: number };

/** A runnable criterion's time limit when it names none: ten minutes. */
export const DEFAULT_CRITERION_TIMEOUT_SECONDS = 600;

export interface Intent {
  id: string;
  name: string;
  status: IntentStatus;
  ownedScope: string[];
  constraints: string[];
  /** The criteria as one line of text each (a runnable one by its name, else its command). */
  acceptanceCriteria: string[];
  /** The criteria as written; `criteriaValid` false when one of them has an error (then none may run). */
  criteria: Criterion[];
  criteriaValid: boolean;
  relatedSpecs: RelatedSpec[];
  parentIntent: string | null;
  tags: string[];
  version?: number;
  createdAt?: string;
  updatedAt?: string;
  /** Where the intent's mapping sits in the file, for hover, CodeLens and code actions. */
  span: Span;
  /** 0-based line of the `- id:` item, for CodeLens. */
  line: number;
}

export type ProblemSeverity = "error" | "warning";

export interface Position {
  line: number;
  character: number;
}

export interface Problem {
  message: string;
  severity: ProblemSeverity;
  span: Span;
  start: Position;
  end: Position;
}

export interface Catalogue {
  intents: readonly Intent[];
  byId: ReadonlyMap<string, Intent>;
}

export interface LoadResult {
  /** Intents that loaded without errors. */
  catalogue: Catalogue;
  problems: Problem[];
  hasErrors: boolean;
}

export function makeCatalogue(intents: readonly Intent[]): Catalogue {
  return { intents, byId: new Map(intents.map((i) => [i.id, i])) };
}

export const emptyCatalogue: Catalogue = makeCatalogue([]);
