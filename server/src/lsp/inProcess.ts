/**
 * The server for a Node process that runs it on streams of its own rather than on stdio: the protocol tests,
 * over a pair of in-memory streams (built as dist/intent-server-main.js, not shipped). The connection is made
 * here, from the same copy of the protocol library as the server, so that the errors the server answers
 * with are that library's own.
 */
import type { Readable, Writable } from "node:stream";
import { createConnection, ProposedFeatures, StreamMessageReader, StreamMessageWriter } from "vscode-languageserver/node";
import { IntentServer } from "./server";

/**
 * Builds the server on `input` / `output` and starts serving; what is sent before it listens waits in the
 * stream. Readers and writers, not the raw streams: given streams, `createConnection` ends the process when
 * they close.
 */
export async function serveStreams(input: Readable, output: Writable): Promise<IntentServer> {
  const server = await IntentServer.create(createConnection(ProposedFeatures.all, new StreamMessageReader(input), new StreamMessageWriter(output)));
  server.listen();
  return server;
}
