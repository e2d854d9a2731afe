/** Command ids accepted by `workspace/executeCommand`. Clients bind UI to these; never rename one. */
export const Commands = {
  selectIntent: "intent.selectIntent",
  clearIntent: "intent.clearIntent",
  amendScope: "intent.amendScope",
  transition: "intent.transition",
  ignorePath: "intent.ignorePath",
  listIntents: "intent.listIntents",
  showContext: "intent.showContext",
  blame: "intent.blame",
  regenerateMap: "intent.regenerateMap",
  verifyLedger: "intent.verifyLedger",
} as const;

export type CommandId = (typeof Commands)[keyof typeof Commands];
export const allCommands: CommandId[] = Object.values(Commands);
