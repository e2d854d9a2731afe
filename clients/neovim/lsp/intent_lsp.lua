-- intent-lsp for vim.lsp.config (Neovim 0.11+). With this directory on 'runtimepath':
--   vim.lsp.enable("intent_lsp")
-- Overrides go through vim.lsp.config("intent_lsp", { ... }), e.g. settings = { intentLsp = { ... } }.
return {
  cmd = { "intent-lsp", "--stdio" },
  -- vim.fs.root takes the dirname of the first hit, so a nested marker like
  -- ".orchestration/active_intents.yaml" would make ".orchestration" the root; the directory works.
  -- Earlier markers win over nearer later ones, so a nested .git does not hide the intents.
  root_markers = { ".orchestration", ".git" },
  -- No filetypes: intent scopes apply to every file, whatever its language.
}
