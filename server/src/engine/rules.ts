import type { Settings } from "@shared/settings";
import { IgnoreRules } from "./ignore";
import { loadIntents } from "./intents/load";
import { emptyCatalogue, type Catalogue, type LoadResult } from "./intents/model";
import { mergeSettings, parseConfig, type ParsedConfig } from "./settings";
import { ScopeIndex } from "./scope";
import { CONFIG_FILE, INTENTS_FILE, ORCHESTRATION_IGNORE_FILE, ROOT_IGNORE_FILE, type RuleFileTexts } from "./workspaceFiles";

/**
 * Everything a verdict needs, built once per change of the rule files or settings, so that judging an
 * edit never re-reads a file or recompiles a glob.
 */
export interface Rules {
  /** The catalogue in force: the file's, or the last good one while the file has errors. */
  catalogue: Catalogue;
  scopes: ScopeIndex;
  ignore: IgnoreRules;
  settings: Settings;
  intents: LoadResult;
  config: ParsedConfig;
  /** True when the file has errors and an older catalogue stands in for it. */
  usingLastGood: boolean;
  intentsFileExists: boolean;
  /** The text the catalogue was read from, so that writes can refuse when the file changed since. */
  intentsText: string | undefined;
}

/** `load` reads the intents file's text; the doors that know the workspace pass the cached loader. */
export function buildRules(
  texts: RuleFileTexts,
  clientSettings: Partial<Settings> = {},
  lastGood?: Catalogue,
  load: (text: string) => LoadResult = loadIntents,
): Rules {
  const intentsText = texts[INTENTS_FILE];
  const intents = intentsText === undefined ? { catalogue: emptyCatalogue, problems: [], hasErrors: false } : load(intentsText);
  const { config, settings } = settingsOf(texts, clientSettings);
  const usingLastGood = intents.hasErrors && lastGood !== undefined;
  const catalogue = usingLastGood ? lastGood! : intents.catalogue;
  return {
    catalogue,
    scopes: new ScopeIndex(catalogue),
    ignore: new IgnoreRules({ exempt: settings.exempt, rootIgnore: texts[ROOT_IGNORE_FILE], orchestrationIgnore: texts[ORCHESTRATION_IGNORE_FILE] }),
    settings,
    intents,
    config,
    usingLastGood,
    intentsFileExists: intentsText !== undefined,
    intentsText,
  };
}

/**
 * The settings in force (`config.jsonc` under the client's), and the parsed file with its problems: what
 * `buildRules` takes, and all that a command answering from the ledger alone (`intent blame`) needs.
 */
export function settingsOf(texts: RuleFileTexts, clientSettings: Partial<Settings> = {}): { config: ParsedConfig; settings: Settings } {
  const config = texts[CONFIG_FILE] === undefined ? { values: {}, problems: [] } : parseConfig(texts[CONFIG_FILE]!);
  return { config, settings: mergeSettings(config.values, clientSettings) };
}
