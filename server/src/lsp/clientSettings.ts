import { pathToFileURL } from "node:url";
import type { Connection, InitializeParams } from "vscode-languageserver";
import { SETTINGS_SECTION } from "@shared/settings";
import { editorSettings } from "./settings";
import type { WorkspaceContext } from "./workspaceContext";
import type { Workspaces } from "./workspaces";

/** What the client can do, from `initialize`: decides how settings, file events and refreshes flow. */
export interface ClientCapabilities {
  configuration: boolean;
  configurationRegistration: boolean;
  watchedFiles: boolean;
  workspaceFolders: boolean;
  progress: boolean;
  codeLensRefresh: boolean;
  inlayHintRefresh: boolean;
  markdownHover: boolean;
}

export function clientCapabilities(params: InitializeParams): ClientCapabilities {
  const ws = params.capabilities.workspace;
  return {
    configuration: !!ws?.configuration,
    configurationRegistration: !!ws?.didChangeConfiguration?.dynamicRegistration,
    watchedFiles: !!ws?.didChangeWatchedFiles?.dynamicRegistration,
    workspaceFolders: !!ws?.workspaceFolders,
    progress: !!params.capabilities.window?.workDoneProgress,
    codeLensRefresh: !!ws?.codeLens?.refreshSupport,
    inlayHintRefresh: !!ws?.inlayHint?.refreshSupport,
    markdownHover: params.capabilities.textDocument?.hover?.contentFormat?.includes("markdown") ?? true,
  };
}

/**
 * The editor's `intentLsp` settings, pulled per workspace folder (`workspace/configuration`) or pushed
 * (`didChangeConfiguration`, initialization options) by clients that do not answer pulls. Applying them
 * only sets them: the caller reloads each workspace once.
 */
export class ClientSettings {
  constructor(
    private readonly connection: Connection,
    private readonly workspaces: Workspaces,
    private readonly caps: () => ClientCapabilities,
  ) {}

  /** Pulls every workspace's settings, giving up after `ms` (a client that never answers must not stall us). */
  async pullWithin(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), ms)));
    if ((await Promise.race([this.pull(), late])) === "late") {
      this.connection.console.warn(`intent-lsp: the client did not answer workspace/configuration within ${ms} ms; going on with config.jsonc and defaults`);
    }
    clearTimeout(timer);
  }

  async pull(): Promise<void> {
    if (!this.caps().configuration) return;
    for (const ctx of this.workspaces.all()) {
      try {
        const [raw] = await this.connection.workspace.getConfiguration([{ scopeUri: pathToFileURL(ctx.root).href, section: SETTINGS_SECTION }]);
        this.apply(raw, ctx);
      } catch (err) {
        this.connection.console.warn(`intent-lsp: could not read client settings: ${(err as Error).message}`);
      }
    }
  }

  /** `didChangeConfiguration`: pull again, or take what was pushed. */
  async changed(pushed: unknown): Promise<void> {
    if (this.caps().configuration) await this.pull();
    else this.apply((pushed as Record<string, unknown> | null)?.[SETTINGS_SECTION]);
  }

  apply(raw: unknown, only?: WorkspaceContext): void {
    if (!raw || typeof raw !== "object") return;
    const { values, issues } = editorSettings(raw);
    for (const issue of issues) this.connection.console.warn(`intent-lsp: editor setting ${SETTINGS_SECTION}: ${issue}`);
    for (const ctx of only ? [only] : this.workspaces.all()) ctx.setClientSettings(values);
  }
}
