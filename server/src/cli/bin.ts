/**
 * The CLI bundle's entry point (started by launch/cli.ts): runs `intent` with this process's arguments, or,
 * started by a hook's launcher, the hook service (cli/hookService.ts, loaded only then).
 */
import { SERVE_HOOKS } from "../io/hookServiceProtocol";
import { runAsProgram } from "./main";

if (process.argv[2] === SERVE_HOOKS && process.argv[3]) (require("./hookService") as typeof import("./hookService")).serveHooks(process.argv[3]);
else runAsProgram();
