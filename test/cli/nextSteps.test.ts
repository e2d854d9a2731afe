import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { ID_BY_STATUS, INTENTS_BY_STATUS } from "../support/intentsByStatus";

/**
 * Every refusal of `intent select`, `start` and `complete` names a next step, and following it literally
 * works: for an intent in each status (and an unknown id), each command the refusal quotes is run from the
 * same state and must succeed.
 */

beforeAll(ensureBuilt);

const YAML = ".orchestration/active_intents.yaml";
const INTENTS = INTENTS_BY_STATUS;
const BY_STATUS = ID_BY_STATUS;
const COMMANDS = [["select"], ["select", "--start"], ["start"], ["complete"]] as const;

/** The cases that are no refusal: the lifecycle allows them. */
const ALLOWED = new Set([
  "select IN_PROGRESS",
  "select --start IN_PROGRESS",
  "select --start PENDING",
  "select --start BLOCKED",
  "start PENDING",
  "start BLOCKED",
  "complete IN_PROGRESS",
]);

let ws: TempWorkspace;
beforeAll(() => {
  ws = new TempWorkspace();
});
afterAll(() => ws.dispose());

function reset() {
  ws.write(YAML, INTENTS);
  ws.select(null);
}

/** Runs `intent <args>` from the reset state. */
function run(args: readonly string[]) {
  reset();
  return runCli([...args], { cwd: ws.root });
}

describe("refusals name a next step that works", () => {
  for (const command of COMMANDS) {
    for (const [status, id] of Object.entries(BY_STATUS)) {
      const name = `${command.join(" ")} ${status}`;
      it(`intent ${command[0]} ${id}${command
        .slice(1)
        .map((a) => ` ${a}`)
        .join("")} (${status})`, () => {
        const r = run([command[0], id, ...command.slice(1)]);
        if (ALLOWED.has(name)) {
          expect(r.stderr).toBe("");
          expect(r.status).toBe(0);
          return;
        }
        expect(r.status).toBe(1);
        const suggested = [...r.stderr.matchAll(/`intent ([^`]+)`/g)].map((m) => m[1]!.split(" "));
        expect(suggested.length, r.stderr).toBeGreaterThan(0);
        for (const args of suggested) {
          const followed = run(args);
          expect(followed.stderr, `${r.stderr}→ intent ${args.join(" ")}`).toBe("");
          expect(followed.status).toBe(0);
        }
      });
    }
  }
});
