/**
 * Epoch milliseconds of ISO times, as `Date.parse` reads them. Records and commit times are written in one
 * form, `toISOString`'s (`2026-11-26T20:40:03.000Z`): that form is read here digit by digit, several times
 * faster than `Date.parse` (a report reads a time for each of a few hundred thousand runs of lines); any
 * other text, or a value out of its range, is left to `Date.parse`, so the answer is always its answer.
 */

const DASH = 45;
const COLON = 58;
const DOT = 46;
const T = 84;
const Z = 90;
const ZERO = 48;

const DAY_MS = 86_400_000;

/** Days from 1970-01-01 to a proleptic Gregorian date (years 0 to 9999, month 1 to 12). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

const daysInMonth = (year: number, month: number) =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;

export function isoMs(text: string): number {
  if (
    text.length !== 24 ||
    text.charCodeAt(4) !== DASH ||
    text.charCodeAt(7) !== DASH ||
    text.charCodeAt(10) !== T ||
    text.charCodeAt(13) !== COLON ||
    text.charCodeAt(16) !== COLON ||
    text.charCodeAt(19) !== DOT ||
    text.charCodeAt(23) !== Z
  )
    return Date.parse(text);
  // the number of `length` digits at `at`; -1 when one of them is not a digit
  const digits = (at: number, length: number) => {
    let n = 0;
    for (let i = at; i < at + length; i++) {
      const d = text.charCodeAt(i) - ZERO;
      if (d < 0 || d > 9) return -1;
      n = n * 10 + d;
    }
    return n;
  };
  const year = digits(0, 4);
  const month = digits(5, 2);
  const day = digits(8, 2);
  const hour = digits(11, 2);
  const minute = digits(14, 2);
  const second = digits(17, 2);
  const ms = digits(20, 3);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour < 0 || hour > 23 || minute < 0 || minute > 59)
    return Date.parse(text);
  if (second < 0 || second > 59 || ms < 0) return Date.parse(text);
  return daysFromCivil(year, month, day) * DAY_MS + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms;
}
