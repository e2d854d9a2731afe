//! Starts intent-lsp for Zed. Zed runs the server as a process; this extension only says which one:
//! `lsp.intent-lsp.binary` from the user's settings when given, else `intent-lsp` found on the
//! worktree's PATH (installed with `npm install -g`, or linked from a checkout). Every rule stays in the
//! server, so Zed sees the same diagnostics, hovers, code actions and records as every other editor.
use zed_extension_api::{self as zed, serde_json, settings::LspSettings, LanguageServerId, Result};

const SERVER: &str = "intent-lsp";

struct IntentLsp;

impl zed::Extension for IntentLsp {
    fn new() -> Self {
        IntentLsp
    }

    fn language_server_command(&mut self, _id: &LanguageServerId, worktree: &zed::Worktree) -> Result<zed::Command> {
        let binary = LspSettings::for_worktree(SERVER, worktree).ok().and_then(|s| s.binary);
        let args = binary
            .as_ref()
            .and_then(|b| b.arguments.clone())
            .unwrap_or_else(|| vec!["--stdio".to_string()]);
        let command = match binary.and_then(|b| b.path) {
            Some(path) => path,
            None => worktree.which(SERVER).ok_or_else(|| {
                "intent-lsp was not found on PATH: install it (npm install -g intent-lsp) or set \
                 lsp.intent-lsp.binary.path in Zed's settings"
                    .to_string()
            })?,
        };
        Ok(zed::Command { command, args, env: Default::default() })
    }

    /// The server pulls its editor settings as the `intentLsp` section of `workspace/configuration`;
    /// they come from `lsp.intent-lsp.settings` in Zed's settings.
    fn language_server_workspace_configuration(
        &mut self,
        _id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<Option<serde_json::Value>> {
        let settings = LspSettings::for_worktree(SERVER, worktree).ok().and_then(|s| s.settings);
        Ok(Some(serde_json::json!({ "intentLsp": settings.unwrap_or_else(|| serde_json::json!({})) })))
    }
}

zed::register_extension!(IntentLsp);
