import { join } from "node:path";
import { ErrorCodes, MessageType, ResponseError, ShowMessageNotification, type Connection, type ExecuteCommandParams } from "vscode-languageserver";
import { INTENTS_FILE } from "../engine/workspaceFiles";
import { readOptional } from "../io/optionalFile";
import { commandAnswer } from "./commandAnswers";
import { commandHandlers, normalizeArgs, type CommandHost } from "./commands";
import { uriToPath } from "./documents";
import { ledgerCommands } from "./ledgerCommands";
import { checkCommandArguments } from "./requestParams";
import type { ServerParts } from "./serverParts";

/** `workspace/executeCommand`: each command to its handler (commands.ts, ledgerCommands.ts), its answer shown. */
export class CommandRouter {
  constructor(
    private readonly connection: Connection,
    private readonly parts: ServerParts,
  ) {}

  async execute({ command, arguments: args }: ExecuteCommandParams): Promise<unknown> {
    const handler = commandHandlers[command] ?? ledgerCommands[command];
    if (!handler) throw new ResponseError(ErrorCodes.MethodNotFound, `Unknown command ${command}.`);
    checkCommandArguments(command, args);
    const params = normalizeArgs(args);
    // the person who ran the command sees its answer, whatever the client does with the return value
    const tell = (type: MessageType, message: string) => {
      if (params.quiet !== true) void this.connection.sendNotification(ShowMessageNotification.type, { type, message });
    };
    try {
      const result = await handler(this.commandHost, params);
      tell(MessageType.Info, commandAnswer(command, result));
      return result;
    } catch (err) {
      tell(MessageType.Error, `intent-lsp: ${command} failed: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
  }

  private readonly commandHost: CommandHost = {
    context: (args) => {
      const uri = typeof args.uri === "string" ? args.uri : undefined;
      const fsPath = uri ? uriToPath(uri) : undefined;
      const ctx = (fsPath && this.parts.workspaces.of(fsPath)) || this.parts.workspaces.any();
      if (!ctx) throw new ResponseError(ErrorCodes.InvalidRequest, "No workspace folder is open; open the folder that holds .orchestration/.");
      return ctx;
    },
    hasUnsavedIntents: (ctx) => {
      const doc = this.parts.documents.at(join(ctx.root, INTENTS_FILE));
      return !!doc && doc.doc.getText() !== readOptional(join(ctx.root, INTENTS_FILE));
    },
    hasUnsavedEdits: (ctx, path) =>
      [...this.parts.documents.inWorkspace(ctx)].some((d) => d.path === path && d.doc.getText() !== readOptional(join(ctx.root, path))),
    refresh: (ctx) => this.parts.sync.refresh(ctx),
    pollLedger: (ctx) => this.parts.ledgers.poll(ctx),
    document: (uri) => this.parts.documents.get(uri),
    verify: (ctx, intent) => this.parts.criteria.verifyForCompletion(ctx, intent),
    runCriteria: (ctx, intent) => this.parts.criteria.runCommands(ctx, intent).then((r) => r.result),
    driftOf: (ctx, id) => this.parts.health.driftOf(ctx, id),
    warn: (message) => this.parts.criteria.warn(message),
    now: () => new Date(),
  };
}
