import { CodeLensRefreshRequest, MessageType, ShowMessageNotification, type Connection, type InitializeParams } from "vscode-languageserver";
import { clientCapabilities, type ClientCapabilities } from "./clientSettings";

/**
 * The editor at the other end of the connection: what it can do (known once it sent `initialize`) and the
 * ways every part tells it something. Built first, before any part, so that each part is given it whole.
 */
export class EditorClient {
  private capabilities: ClientCapabilities | undefined;

  constructor(readonly connection: Connection) {}

  /** The client's capabilities; undefined before `initialize`. */
  caps(): ClientCapabilities | undefined {
    return this.capabilities;
  }

  /** Reads what the client can do from its `initialize` request. */
  initialize(params: InitializeParams): ClientCapabilities {
    this.capabilities = clientCapabilities(params);
    return this.capabilities;
  }

  /**
   * Wraps a notification handler or timer body: an error is logged to the client and the server keeps
   * serving. Notifications have no response to carry an error, and an unhandled rejection would end the process.
   */
  guard<A extends unknown[]>(what: string, fn: (...args: A) => unknown): (...args: A) => void {
    return (...args) => {
      const fail = (err: unknown) =>
        this.connection.console.error(`intent-lsp: ${what} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      try {
        const r = fn(...args);
        if (r instanceof Promise) r.catch(fail);
      } catch (err) {
        fail(err);
      }
    };
  }

  refreshLenses(): void {
    if (this.capabilities?.codeLensRefresh) void this.connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
    if (this.capabilities?.inlayHintRefresh) void this.connection.languages.inlayHint.refresh().catch(() => undefined);
  }

  /** A warning the user should see (`window/showMessage`), logged too. */
  warn(message: string): void {
    void this.connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Warning, message });
    this.connection.console.warn(message);
  }

  /**
   * An error the user must see. `window/showMessage` (a notification) rather than the request form: every
   * client shows it, and nothing waits for an answer.
   */
  tellError(message: string): void {
    void this.connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Error, message });
    this.connection.console.error(message);
  }
}
