// SQL files imported as their text (scripts/build.mjs's loader; vitest.config.ts's plugin).
declare module "*.sql" {
  const text: string;
  export default text;
}
