/**
 * The progress line of a command's long work (a cold `intent stats` or `intent report`, `intent ledger
 * compact`, `intent export`): shown only on a terminal, once the work has gone on for PROGRESS_DELAY_MS, on
 * standard error, redrawn in place (`\r`) and cleared when the work ends. Piped, or with `CI` set, nothing is
 * written: a log or a program reading the output gets exactly what the command says, nothing more.
 */

/** How long work goes on before its progress is shown: shorter work stays silent. */
export const PROGRESS_DELAY_MS = 500;
/** The least time between two drawings of the line (a terminal need not be written thousands of times a second). */
const REDRAW_MS = 100;
/** Go to the start of the line and erase it. */
const CLEAR_LINE = "\r\x1b[K";

/** Standard error, as the progress line needs it. */
export interface ProgressTerminal {
  /** Whether it is a terminal: only then is progress shown. */
  isTTY: boolean;
  /** Its width in columns, when known: a longer line is cut, since a wrapped one cannot be redrawn in place. */
  columns?: number;
  /** Writes the text as it is (its control sequences are the point). */
  write(text: string): void;
}

export interface Progress {
  /** What the work is doing now, e.g. "reading the ledger: 40%". Cheap to call as often as work goes. */
  update(text: string): void;
  /** The work ended: the line is cleared, if it was shown. Call it on success and failure alike. */
  done(): void;
}

const SILENT: Progress = { update: () => {}, done: () => {} };

/** Whether progress is shown at all: on a terminal, and not under CI (which sets `CI`, often with a terminal emulated). */
export function showsProgress(terminal: ProgressTerminal | undefined, env: NodeJS.ProcessEnv): boolean {
  return terminal?.isTTY === true && !env["CI"];
}

/**
 * The progress of work starting now, described by `initial` until the first update. The line appears at the
 * first update after PROGRESS_DELAY_MS, or then by itself with the last text when the work waits (on git, on a
 * file) meanwhile.
 */
export function startProgress(terminal: ProgressTerminal | undefined, env: NodeJS.ProcessEnv, initial: string, clock: () => number = Date.now): Progress {
  if (!terminal || !showsProgress(terminal, env)) return SILENT;
  const started = clock();
  let text = initial;
  let drawnAt: number | undefined;
  let drawn: string | undefined;
  let ended = false;
  const draw = () => {
    const line = toWidth(text, terminal.columns);
    if (ended || line === drawn) return;
    drawnAt = clock();
    drawn = line;
    terminal.write(`${CLEAR_LINE}${line}`);
  };
  const timer = setTimeout(draw, PROGRESS_DELAY_MS);
  timer.unref?.();
  return {
    update(next) {
      text = next;
      if (ended) return;
      const now = clock();
      if (now - started < PROGRESS_DELAY_MS) return;
      if (drawnAt === undefined || now - drawnAt >= REDRAW_MS) draw();
    },
    done() {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      if (drawnAt !== undefined) terminal.write(CLEAR_LINE);
    },
  };
}

/** The line cut to the terminal's width (one column spare: a line that fills it wraps on some terminals). */
function toWidth(text: string, columns: number | undefined): string {
  const line = text.replace(/[\r\n]+/g, " ");
  if (!columns || columns < 2 || line.length < columns) return line;
  return `${line.slice(0, columns - 2)}…`;
}
