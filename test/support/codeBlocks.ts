/** Blocks of source the move, cut-and-paste and revert tests put in files: long enough to be found as a moved block. */

/** A function of six lines (git's copy score and the editor's rule need at least two lines and 40 letters and digits). */
export const DEW_POINT: readonly string[] = [
  "export function dewPoint(celsius: number, humidity: number): number {",
  "  const a = 17.27;",
  "  const b = 237.7;",
  "  const g = (a * celsius) / (b + celsius) + Math.log(humidity / 100);",
  "  return (b * g) / (a - g);",
  "}",
];
