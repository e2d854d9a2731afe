/** The CLI bundle's entry point: runs `intent` with this process's arguments (started by launch/cli.ts). */
import { runAsProgram } from "./main";

runAsProgram();
