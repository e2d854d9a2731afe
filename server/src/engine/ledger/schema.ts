/**
 * Validation against the JSON Schema embedded in the Agent Trace v0.1.0 specification, with a real
 * validator (ajv, draft 2020-12, formats uuid/date-time/uri). Compiled on first use: the LSP server should
 * not pay for it unless it writes or verifies a record.
 */
import Ajv2020 from "ajv/dist/2020";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import traceRecordSchema from "../../../../shared/schema/trace-record.schema.json";

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (!compiled) {
    // allErrors: a person fixing a record wants every problem at once, not one per run.
    const ajv = new Ajv2020({ allErrors: true });
    addFormats(ajv);
    compiled = ajv.compile(traceRecordSchema as object);
  }
  return compiled;
}

/** Schema violations of `obj` as `"<json pointer>: <problem>"`; empty when the record is valid. */
export function validateRecord(obj: unknown): string[] {
  const validate = validator();
  if (validate(obj)) return [];
  return (validate.errors ?? []).map(describeError);
}

function describeError(e: ErrorObject): string {
  const pointer = e.instancePath === "" ? "/" : e.instancePath;
  const params = e.params as Record<string, unknown>;
  let detail = e.message ?? e.keyword;
  if (e.keyword === "enum" && Array.isArray(params["allowedValues"])) {
    detail += ` (${(params["allowedValues"] as unknown[]).map((v) => JSON.stringify(v)).join(", ")})`;
  }
  return `${pointer}: ${detail}`;
}
