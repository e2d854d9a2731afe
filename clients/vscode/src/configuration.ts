// The extension's contributed settings, made from shared/src/settings.ts when the .vsix is packaged, so their
// descriptions, enums and defaults are the server's own. Only what an editor may set is contributed; the
// workspace rules (autoSelect, exempt, ledgerPath) live in .orchestration/config.jsonc.
import { EDITOR_SETTINGS, SETTINGS_SECTION, defaultSettings, diagnosticCodeDocs, settingsSchema, type SettingSchema as SchemaNode } from "@shared/settings";

export interface SettingSchema {
  type: string | string[];
  default: unknown;
  description?: string;
  markdownDescription?: string;
  enum?: readonly string[];
  scope?: "window" | "resource";
  order?: number;
}

/**
 * Keys under `intentLsp.` that are sent to the server; `trace.server` stays with the client. VS Code's
 * settings screen shows one entry per leaf, so each editor setting of the schema is flattened: an object's
 * fields become `contributor.type`, …, and a map (`severity`) one entry per key its schema names.
 */
export function editorSettingSchemas(): Record<string, SettingSchema> {
  const out: Record<string, SettingSchema> = {};
  const defaults = defaultSettings as unknown as Record<string, Record<string, unknown>>;
  for (const key of EDITOR_SETTINGS) {
    const node: SchemaNode = settingsSchema.properties[key];
    if (typeof node.additionalProperties === "object") {
      const values = node.additionalProperties;
      for (const name of node.propertyNames?.enum ?? []) {
        const doc = key === "severity" ? `${diagnosticCodeDocs[name as keyof typeof diagnosticCodeDocs]} ` : "";
        out[`${key}.${name}`] = leaf(values, defaults[key]?.[name], `${doc}${node.description ?? ""}`);
      }
    } else {
      for (const [name, field] of Object.entries(node.properties ?? {})) out[`${key}.${name}`] = leaf(field, defaults[key]?.[name], field.description);
    }
  }
  for (const schema of Object.values(out)) schema.scope = "resource";
  return out;
}

/** One entry of the settings screen; an unset string is "" there (VS Code's empty field). */
function leaf(node: SchemaNode, fallback: unknown, description: string | undefined): SettingSchema {
  return {
    type: node.type,
    ...(node.enum ? { enum: node.enum } : {}),
    default: fallback ?? (node.type === "string" ? "" : undefined),
    ...(description ? { description } : {}),
  };
}

/** `contributes.configuration` of the extension's package.json. */
export function contributedConfiguration(): { title: string; properties: Record<string, SettingSchema> } {
  const properties: Record<string, SettingSchema> = {};
  let order = 0;
  for (const [key, schema] of Object.entries(editorSettingSchemas())) properties[`${SETTINGS_SECTION}.${key}`] = { ...schema, order: order++ };
  properties[`${SETTINGS_SECTION}.trace.server`] = {
    type: "string",
    enum: ["off", "messages", "verbose"],
    default: "off",
    description: 'Log the JSON-RPC messages between VS Code and the intent-lsp server to the "intent-lsp Trace" output.',
    scope: "window",
    order: order++,
  };
  return { title: "Intent LSP", properties };
}

/** What a setting's layers say: the workspace folder's, the workspace's or the user's value, if any. */
export interface Inspected {
  workspaceFolderValue?: unknown;
  workspaceValue?: unknown;
  globalValue?: unknown;
}

/**
 * The settings the user set explicitly, nested as the server reads them (`{severity: {"out-of-scope": "hint"}}`).
 * Defaults are left out on purpose: the server's own defaults apply, and `.orchestration/config.jsonc` must
 * win over values the user never chose. `effective` answers the contributor type when only its model id was
 * set, because the server takes the contributor as a whole.
 */
export function explicitSettings(inspect: (key: string) => Inspected | undefined, effective: (key: string) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(editorSettingSchemas())) {
    const i = inspect(key);
    const value = i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
    if (value === undefined) continue;
    const [head, ...rest] = key.split(".");
    out[head] ??= {};
    const group = out[head] as Record<string, unknown>;
    group[rest.join(".")] = value;
  }
  const contributor = out.contributor as Record<string, unknown> | undefined;
  if (contributor) {
    contributor.type ??= effective("contributor.type");
    if (contributor.modelId === "") delete contributor.modelId;
  }
  return out;
}
