// Runs npm scripts at once (`node scripts/parallel.mjs typecheck lint build`): npm test's checks before
// vitest are independent of each other and mostly wait on one core each. Each script's output is printed
// whole, in the order given, once it has finished; the exit status is the first failure's, else 0.
import { spawn } from "node:child_process";

const npm = process.env.npm_execpath;
const runs = process.argv.slice(2).map(
  (name) =>
    new Promise((resolve) => {
      // npm_execpath is npm's own CLI when run from an npm script; else the npm on PATH
      const [cmd, args] = npm ? [process.execPath, [npm, "run", "-s", name]] : ["npm", ["run", "-s", name]];
      const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], shell: !npm && process.platform === "win32" });
      let output = "";
      child.stdout.on("data", (d) => (output += d));
      child.stderr.on("data", (d) => (output += d));
      child.on("error", (e) => resolve({ name, status: 1, output: `${output}${e.message}\n` }));
      child.on("close", (status, signal) => resolve({ name, status: status ?? (signal ? 1 : 0), output }));
    }),
);
let failed = 0;
for (const run of runs) {
  const { name, status, output } = await run;
  process.stdout.write(output);
  if (status !== 0) {
    process.stderr.write(`npm run ${name} failed (exit ${status})\n`);
    failed ||= status;
  }
}
process.exit(failed);
