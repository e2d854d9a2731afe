/**
 * The string formats the Agent Trace schema names (uuid, date-time, uri), as ajv-formats' full formats read
 * them: the one set both validators use (the build's precompiled one, scripts/build.mjs, and the run-time
 * one, server/src/io/ledger/schema.ts). A `uri` that is one of intent-lsp's own URNs (`urn:intent-lsp:session:`
 * or `urn:intent:`, then an id written with encodeURIComponent) is accepted at once: every character of it is
 * one RFC 3986 allows in a path, so ajv-formats' check, a regular expression that costs an agent's post-write
 * hook more than the rest of its validation, would accept it too. Any other string gets that check.
 */
const { fullFormats } = require("ajv-formats/dist/formats");

const OWN_URN = /^urn:(?:intent-lsp:session|intent):(?:[A-Za-z0-9\-_.!~*'()]|%[0-9A-F]{2})*$/;

module.exports.traceFormats = {
  uuid: fullFormats.uuid,
  "date-time": fullFormats["date-time"],
  uri: (s) => OWN_URN.test(s) || fullFormats.uri(s),
};
