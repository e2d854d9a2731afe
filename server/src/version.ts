/**
 * The product's version, one value for the server's `serverInfo`, the CLI's `--version`, SARIF reports and
 * the `tool.version` of every record. The build replaces `__INTENT_LSP_VERSION__` with package.json's
 * version; running from source (tests, `tsx`) reports a development version.
 */
declare const __INTENT_LSP_VERSION__: string;

export const INTENT_LSP_VERSION = typeof __INTENT_LSP_VERSION__ === "string" ? __INTENT_LSP_VERSION__ : "0.0.0-dev";
