// A stand-in for an AI extension (Copilot Chat's "Insert at Cursor", Continue, Roo Code), doing what they do
// through VS Code's public API: text inserted into the focused editor at the cursor, and an edit applied to a
// file in the background and saved. intent-lsp is told nothing about either; test/e2e/vscode.test.ts checks
// it does not credit the person.
const vscode = require("vscode");

const COMPLETION = "\n- Forecasts are cached for a minute.\n- Cached forecasts are served while the upstream is down.";
const WEATHER = "src/api/weather.ts";
const AGENT_LINES = "// Retries: three attempts, one second apart.\n// Timeouts: five seconds per attempt.\n";

function activate(context) {
  // the test waits for this before it runs a command: the commands below are registered by then
  const ready = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left);
  ready.text = "E2E agent ready";
  ready.show();
  context.subscriptions.push(
    ready,
    vscode.commands.registerCommand("e2eAgent.insertAtCursor", async () => {
      const editor = vscode.window.activeTextEditor;
      if (editor) await editor.edit((edit) => edit.insert(editor.selection.active, COMPLETION));
    }),
    vscode.commands.registerCommand("e2eAgent.writeWeather", async () => {
      const folder = vscode.workspace.workspaceFolders[0].uri;
      const document = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder, WEATHER));
      const edit = new vscode.WorkspaceEdit();
      edit.insert(document.uri, new vscode.Position(2, 0), AGENT_LINES);
      await vscode.workspace.applyEdit(edit);
      await document.save();
    }),
  );
}

module.exports = { activate };
