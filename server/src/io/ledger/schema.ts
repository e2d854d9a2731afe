/**
 * Validation against the JSON Schema embedded in the Agent Trace v0.1.0 specification, with a real
 * validator (ajv, draft 2020-12, formats uuid/date-time/uri as shared/schema/traceFormats.cjs reads them).
 * The built tools load the validator the build generated from the schema (dist/trace-record-validator.js, ajv's standalone code): compiling the schema
 * costs more than the rest of an agent's post-write hook. Running from source, it is compiled on first use.
 * Either way the LSP server pays nothing unless it writes or verifies a record.
 */
import { join } from "node:path";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020";
import { ajvOptions } from "../../../../shared/schema/validatorOptions.json";

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  compiled ??= prebuilt() ?? compile();
  return compiled;
}

/** Set by the build, which generates the validator before it bundles this module (scripts/build.mjs). */
declare const __INTENT_LSP_VALIDATOR_BUNDLED__: boolean | undefined;

/**
 * The build's validator: bundled into the program that runs (so the CLI's code cache holds it too), or
 * beside it; undefined when running from source.
 */
function prebuilt(): ValidateFunction | undefined {
  if (typeof __INTENT_LSP_VALIDATOR_BUNDLED__ === "boolean") return require("../../../../dist/generated/trace-record-validator.cjs") as ValidateFunction;
  try {
    return require(join(__dirname, "trace-record-validator.js")) as ValidateFunction;
  } catch {
    return undefined;
  }
}

/** ajv itself, and the schema, are loaded only here: the built tools never need them to validate. */
function compile(): ValidateFunction {
  const Ajv2020 = (require("ajv/dist/2020") as typeof import("ajv/dist/2020")).default;
  const { traceFormats } = require("../../../../shared/schema/traceFormats.cjs") as { traceFormats: Record<string, (s: string) => boolean> };
  const ajv = new Ajv2020(ajvOptions);
  for (const [name, format] of Object.entries(traceFormats)) ajv.addFormat(name, format);
  return ajv.compile(require("../../../../shared/schema/trace-record.schema.json") as object);
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
