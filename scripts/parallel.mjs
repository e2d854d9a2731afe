// Runs npm scripts at once (`node scripts/parallel.mjs test:vitest typecheck lint -- ARGS`): npm test's checks
// are independent of each other once the build is done, and the tests mostly wait on the processes they
// start. ARGS (what follows `--`: `npm test -- test/unit`) go to the first script. The first script's output
// is shown as it comes (the tests' progress); each other's is printed whole, in the order given, once the
// first has finished and it has too. The exit status is the first failure's, else 0.
import { spawn } from "node:child_process";

const npm = process.env.npm_execpath;
const given = process.argv.slice(2);
const dashes = given.indexOf("--");
const names = dashes === -1 ? given : given.slice(0, dashes);
const extra = dashes === -1 ? [] : given.slice(dashes + 1);
const runs = names.map(
  (name, i) =>
    new Promise((resolve) => {
      const script = ["run", "-s", name, ...(i === 0 && extra.length ? ["--", ...extra] : [])];
      // npm_execpath is npm's own CLI when run from an npm script; else the npm on PATH
      const [cmd, args] = npm ? [process.execPath, [npm, ...script]] : ["npm", script];
      const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], shell: !npm && process.platform === "win32" });
      let output = "";
      const live = i === 0;
      child.stdout.on("data", (d) => (live ? process.stdout.write(d) : (output += d)));
      child.stderr.on("data", (d) => (live ? process.stderr.write(d) : (output += d)));
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
