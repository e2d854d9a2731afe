/* Reading an agent's hook payload and writing the answer: shared by every agent adapter. */

export interface HookAnswer {
  stdout: string;
  exitCode: number;
  /** For the person reading a log; never needed for the decision. */
  stderr?: string;
}

export type Json = Record<string, unknown>;

export function jsonAnswer(value: unknown): HookAnswer {
  return { stdout: `${JSON.stringify(value)}\n`, exitCode: 0 };
}

export function asObject(v: unknown): Json {
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new Error("the hook input is not a JSON object");
  return v as Json;
}

export function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}
