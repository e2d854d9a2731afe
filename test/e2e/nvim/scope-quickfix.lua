-- Neovim end-to-end driver: an edit outside the active intent's scope is flagged on exactly the edited
-- line, the quick fixes are offered, and applying "Select INT-003 …" through Neovim's own code-action
-- machinery clears it. Run by test/e2e/neovim.test.ts, which asserts on the lines printed here:
--   NVIM <version> | CLIENT <name> <root> | DIAG <lnum> <col> <end_lnum> <end_col> <SEVERITY> <code> <message>
--   ACTION <title> | COMMAND <title> => <command> <json arguments> | CLEARED | STATUS <statusline text>
--   TERMINAL <intent select output> | REFLAGGED | PASS   (or FAIL: <why>)
-- The statusline component is read before the fix, after it, and after `intent select` in a terminal
-- (INTENT_CLI) put the first intent back, which flags the edit again without any request from Neovim.
-- Environment: WS (workspace), FILE (relative to WS), SERVER_CMD, PLUGIN_DIR (clients/neovim),
-- EDIT_LINE (0-based), EDIT_TEXT, SELECT_PATTERN (Lua pattern of the action to apply), SELECTED (the
-- intent selected at the start), SELECTED_STATUS (the statusline then), SELECT_ID (the one the action selects), INTENT_CLI (node dist/cli.js), TIMEOUT_MS.
-- Every wait is vim.wait with a deadline; on failure everything seen so far is printed before exiting 1.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local out, env, ws, file, cmd, timeout = h.out, h.env, h.ws, h.file, h.cmd, h.timeout
local edit_line = tonumber(env("EDIT_LINE"))
local edit_text = env("EDIT_TEXT")
local select_pattern = env("SELECT_PATTERN")

local bufnr
local function intent_diags()
  local mine = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == "intent-lsp" then
      table.insert(mine, d)
    end
  end
  return mine
end
local function dump_diags(prefix, list)
  for _, d in ipairs(list) do
    out(string.format("%s %d %d %d %d %s %s %s", prefix, d.lnum, d.col, d.end_lnum, d.end_col,
      vim.diagnostic.severity[d.severity] or tostring(d.severity), tostring(d.code), (d.message:gsub("\n", "\\n"))))
  end
end
local function fail(msg)
  out("FAIL: " .. msg)
  if bufnr then
    dump_diags("SEEN", vim.diagnostic.get(bufnr))
  end
  vim.cmd("cquit 1")
end

out("NVIM " .. tostring(vim.version()))
-- -u NONE leaves detection off; a user has it on, and 0.11+'s vim.lsp.enable attaches on FileType
vim.cmd("filetype on")
h.setup_plugin()
for _, c in ipairs({ "IntentSelect", "IntentClear", "IntentStatus", "IntentBlame" }) do
  if vim.fn.exists(":" .. c) ~= 2 then
    return fail("plugin did not define :" .. c)
  end
end

vim.cmd("edit " .. vim.fn.fnameescape(file))
bufnr = vim.api.nvim_get_current_buf()

-- The edit must reach the server after didOpen, or it would become part of the baseline.
local client
if not vim.wait(timeout, function()
  client = require("intent_lsp").client()
  return client ~= nil and client.initialized == true and vim.lsp.buf_is_attached(bufnr, client.id)
end, 20) then
  return fail("the intent-lsp client did not start and attach (root " .. tostring(require("intent_lsp").root_dir(bufnr)) .. ")")
end
out(string.format("CLIENT %s %s", client.name, client.config.root_dir))
local selected = env("SELECTED")
local selected_status = env("SELECTED_STATUS")
out("STATUS " .. h.wait_status(bufnr, selected_status))

vim.api.nvim_buf_set_lines(bufnr, edit_line, edit_line + 1, false, { edit_text })

if not vim.wait(timeout, function()
  for _, d in ipairs(intent_diags()) do
    if d.code == "out-of-scope" and d.lnum == edit_line then
      return true
    end
  end
  return false
end, 20) then
  return fail("no out-of-scope diagnostic on line " .. edit_line)
end
local diags = intent_diags()
dump_diags("DIAG", diags)
if #diags ~= 1 then
  return fail("expected exactly one intent-lsp diagnostic, got " .. #diags)
end

-- What a user gets from the lightbulb: actions for the diagnostic's range, with the diagnostic as context.
local d = diags[1]
local lsp_diag = d.user_data and d.user_data.lsp
local reply = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", {
  textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  range = { start = { line = d.lnum, character = d.col }, ["end"] = { line = d.end_lnum, character = d.end_col } },
  context = { diagnostics = { lsp_diag } },
}, timeout) or {}
local found
for _, r in pairs(reply) do
  if r.err then
    return fail("codeAction error: " .. vim.inspect(r.err))
  end
  for _, a in ipairs(r.result or {}) do
    out("ACTION " .. a.title)
    local command = a.command
    if type(a.command) == "string" then -- a bare Command rather than a CodeAction
      command = a
    end
    if a.title:find(select_pattern) and command then
      found = true
      out(string.format("COMMAND %s => %s %s", a.title, command.command, vim.json.encode(command.arguments or {})))
    end
  end
end
if not found then
  return fail("no code action matching '" .. select_pattern .. "' with a command")
end

-- Apply it the way a user does (cursor on the line, :lua vim.lsp.buf.code_action()), so Neovim's
-- own client decides how to run the command: it must end up as workspace/executeCommand.
vim.api.nvim_win_set_cursor(0, { edit_line + 1, 0 })
vim.lsp.buf.code_action({
  apply = true,
  filter = function(a)
    return a.title:find(select_pattern) ~= nil
  end,
})
if not vim.wait(timeout, function()
  return #intent_diags() == 0
end, 20) then
  return fail("the diagnostic was still there after applying the code action")
end
out("CLEARED")
out("STATUS " .. h.wait_status(bufnr, env("SELECT_ID")))

-- Someone selects the first intent again from a terminal: the server sees the file change, flags the
-- edit again, and the statusline follows without Neovim asking.
local cli = vim.split(env("INTENT_CLI"), " ", { trimempty = true })
local terminal = vim.fn.system(vim.list_extend(cli, { "select", selected, "--root", ws }))
out("TERMINAL " .. vim.trim(terminal):gsub("\n", "\\n"))
if vim.v.shell_error ~= 0 then
  return fail("intent select " .. selected .. " exited " .. vim.v.shell_error)
end
if not vim.wait(timeout, function()
  for _, d in ipairs(intent_diags()) do
    if d.code == "out-of-scope" and d.lnum == edit_line then
      return true
    end
  end
  return false
end, 20) then
  return fail("the edit was not flagged again after `intent select " .. selected .. "` in a terminal")
end
out("REFLAGGED")
out("STATUS " .. h.wait_status(bufnr, selected_status))

h.finish(client)
