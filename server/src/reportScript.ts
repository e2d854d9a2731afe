/**
 * The report page's script (clients/report/page.ts with Chart.js), put into the bundle by scripts/build.mjs.
 * Running from source (tests through vitest) has none: the report is then written without charts, and says so.
 */
declare const __INTENT_REPORT_SCRIPT__: string;

export const REPORT_SCRIPT: string | undefined = typeof __INTENT_REPORT_SCRIPT__ === "string" ? __INTENT_REPORT_SCRIPT__ : undefined;
