//! Starts intent-lsp for Zed. Zed runs the server as a process; this extension only says which one:
//! `lsp.intent-lsp.binary` from the user's settings when given, else `intent-lsp` found on the
//! worktree's PATH (installed with `npm install -g`, or linked from a checkout), else the npm package
//! installed by Zed into the extension's own folder and run with Zed's Node. Every rule stays in the
//! server, so Zed sees the same diagnostics, hovers, code actions and records as every other editor.
use zed_extension_api::{self as zed, serde_json, settings::LspSettings, LanguageServerId, Result};

const SERVER: &str = "intent-lsp";
/// The npm package and the server's entry point inside it (package.json `bin.intent-lsp`).
const PACKAGE: &str = "intent-lsp";
const PACKAGE_SERVER: &str = "node_modules/intent-lsp/dist/server.js";

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
        if let Some(path) = binary.and_then(|b| b.path) {
            return Ok(zed::Command { command: path, args, env: Default::default() });
        }
        if let Some(path) = worktree.which(SERVER) {
            return Ok(zed::Command { command: path, args, env: Default::default() });
        }
        let server = installed_server()?;
        Ok(zed::Command { command: zed::node_binary_path()?, args: [vec![server], args].concat(), env: Default::default() })
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

/// The npm package's server, installed (or updated to the registry's latest) into the extension's folder.
fn installed_server() -> Result<String> {
    let latest = zed::npm_package_latest_version(PACKAGE)?;
    if zed::npm_package_installed_version(PACKAGE)?.as_deref() != Some(latest.as_str()) {
        zed::npm_install_package(PACKAGE, &latest).map_err(|e| {
            format!("intent-lsp is not on PATH and installing the npm package failed ({e}); install it (npm install -g intent-lsp) or set lsp.intent-lsp.binary.path")
        })?;
    }
    let dir = std::env::current_dir().map_err(|e| format!("the extension's folder is unknown: {e}"))?;
    Ok(dir.join(PACKAGE_SERVER).to_string_lossy().into_owned())
}

zed::register_extension!(IntentLsp);
