/**
 * The plugins `intent init` writes for the agents whose hooks are in-process modules (OpenCode, Amp). Each
 * only carries the call to `intent hook <agent>` (protocols.ts `PLUGIN`): the event in Claude Code's field
 * names on its standard input, the exit code back. Anything but exit code 0 before a call refuses the call,
 * so a hook that crashed, timed out or could not start denies (fail closed). The text is generated here and
 * nowhere else, so `intent doctor` can tell intent-lsp's plugin (byte for byte) from any other file.
 */

export type PluginAgent = "opencode" | "amp";

const TIMEOUT_MS = 30_000;

/** The function both plugins run the hook with (plain JavaScript, valid TypeScript too). */
const runHook = (agent: PluginAgent) => `const TIMEOUT_MS = ${TIMEOUT_MS};

/** Runs \`intent hook ${agent}\` with the event on its standard input; a failure of any kind is a status other than 0. */
function runHook(event${agent === "amp" ? ": Record<string, unknown>" : ""})${agent === "amp" ? ": Promise<{ status: number; stdout: string; stderr: string }>" : ""} {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let settled = false;
    let timer${agent === "amp" ? ": ReturnType<typeof setTimeout> | undefined" : ""};
    const finish = (status${agent === "amp" ? ": number" : ""}, why${agent === "amp" ? "?: string" : ""}) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, stdout, stderr: why ? \`\${stderr}\${why}\` : stderr });
    };
    let child${agent === "amp" ? ": ReturnType<typeof spawn>" : ""};
    try {
      child = spawn("intent", ["hook", "${agent}"], { cwd: String(event.cwd), stdio: ["pipe", "pipe", "pipe"] });
    } catch (e) {
      finish(-1, \`could not run intent hook ${agent}: \${e instanceof Error ? e.message : String(e)}\`);
      return;
    }
    timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish(-1, \`intent hook ${agent} did not answer within \${TIMEOUT_MS / 1000} s\`);
    }, TIMEOUT_MS);
    child.stdout${agent === "amp" ? "!" : ""}.setEncoding("utf8").on("data", (d${agent === "amp" ? ": string" : ""}) => {
      stdout += d;
    });
    child.stderr${agent === "amp" ? "!" : ""}.setEncoding("utf8").on("data", (d${agent === "amp" ? ": string" : ""}) => {
      stderr += d;
    });
    child.on("error", (e) => finish(-1, \`could not run intent hook ${agent}: \${e.message}\`));
    child.on("close", (code) => finish(code ?? -1));
    child.stdin${agent === "amp" ? "!" : ""}.on("error", () => {});
    child.stdin${agent === "amp" ? "!" : ""}.end(JSON.stringify(event));
  });
}

/** Why a call is refused: the hook's own reason, or what went wrong running it. */
const refusal = (r${agent === "amp" ? ": { status: number; stderr: string }" : ""}) =>
  r.stderr.trim() || \`intent-lsp's hook failed (exit code \${r.status}), so the call is denied to be safe. Ask the user to run \\\`intent doctor\\\` in the workspace.\`;
`;

const OPENCODE = `// intent-lsp: gates OpenCode's tool calls by the active intent and records its writes, through
// \`intent hook opencode\` (see intent-lsp's docs/AGENTS.md). Written by \`intent init --agent opencode\`.
import { spawn } from "node:child_process";

${runHook("opencode")}
/** "provider/model" from what OpenCode tells a plugin about a message's model. */
function modelId(model) {
  if (!model || typeof model !== "object") return undefined;
  const id = model.modelID ?? model.id;
  const provider = model.providerID;
  return typeof id === "string" && id ? (typeof provider === "string" && provider ? \`\${provider}/\${id}\` : id) : undefined;
}

export const IntentLsp = async ({ directory }) => {
  const models = new Map();
  // each call's arguments as the hook before it saw them: older OpenCode builds pass none to tool.execute.after
  const argsOf = new Map();
  return {
    "chat.message": async (input) => {
      const id = modelId(input?.model);
      if (id && input.sessionID) models.set(input.sessionID, id);
    },
    "tool.execute.before": async (input, output) => {
      argsOf.set(input.callID, output?.args ?? {});
      const r = await runHook({
        hook_event_name: "PreToolUse",
        session_id: input.sessionID,
        tool_use_id: input.callID,
        cwd: directory,
        tool_name: input.tool,
        tool_input: output?.args ?? {},
        model: models.get(input.sessionID),
      });
      if (r.status !== 0) throw new Error(refusal(r));
    },
    "tool.execute.after": async (input, output) => {
      const args = input.args ?? argsOf.get(input.callID) ?? {};
      argsOf.delete(input.callID);
      const r = await runHook({
        hook_event_name: "PostToolUse",
        session_id: input.sessionID,
        tool_use_id: input.callID,
        cwd: directory,
        tool_name: input.tool,
        tool_input: args,
        tool_response: typeof output?.output === "string" ? output.output : "",
        model: models.get(input.sessionID),
      });
      const said = r.status === 0 ? r.stdout.trim() : refusal(r);
      if (said && output && typeof output.output === "string") output.output = \`\${output.output}\\n\\n\${said}\`;
    },
  };
};
`;

const AMP = `// @i-know-the-amp-plugin-api-is-wip-and-very-experimental-right-now
// intent-lsp: gates Amp's tool calls by the active intent and records its writes, through
// \`intent hook amp\` (see intent-lsp's docs/AGENTS.md). Written by \`intent init --agent amp\`.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

${runHook("amp")}
// biome-ignore lint/suspicious/noExplicitAny: Amp's plugin API is experimental and ships no stable types
type Amp = any;
// biome-ignore lint/suspicious/noExplicitAny: the event of an experimental API
type ToolEvent = any;

/** The workspace Amp runs in: its root when the API says, else the folder Amp started in. */
function workspaceRoot(amp: Amp): string {
  const root = amp?.system?.workspaceRoot;
  const text = typeof root === "string" ? root : root && typeof root.toString === "function" ? root.toString() : undefined;
  if (text?.startsWith("file://")) return fileURLToPath(text);
  return text || process.cwd();
}

export default function (amp: Amp) {
  amp.on("tool.call", async (event: ToolEvent) => {
    const r = await runHook({
      hook_event_name: "PreToolUse",
      session_id: event?.thread?.id,
      tool_use_id: event?.toolUseID,
      cwd: workspaceRoot(amp),
      tool_name: event?.tool,
      tool_input: event?.input ?? {},
    });
    if (r.status !== 0) return { action: "reject-and-continue", message: refusal(r) };
    return { action: "allow" };
  });
  amp.on("tool.result", async (event: ToolEvent) => {
    if (event?.status !== "done") return;
    await runHook({
      hook_event_name: "PostToolUse",
      session_id: event?.thread?.id,
      tool_use_id: event?.toolUseID,
      cwd: workspaceRoot(amp),
      tool_name: event?.tool,
      tool_input: event?.input ?? {},
      tool_response: typeof event?.output === "string" ? event.output : "",
    });
  });
}
`;

export function pluginSource(agent: PluginAgent): string {
  return agent === "opencode" ? OPENCODE : AMP;
}
