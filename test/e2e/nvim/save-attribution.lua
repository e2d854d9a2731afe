-- Neovim end-to-end driver: edit an in-scope line, :write it through Neovim (so Neovim sends willSave,
-- willSaveWaitUntil and didSave itself), and read the attribution back through hover, CodeLens
-- (vim.lsp.codelens) and inlay hints (vim.lsp.inlay_hint). Run by test/e2e/neovim.test.ts, which asserts
-- on the lines printed here:
--   NVIM <version> | CLIENT <name> <root> | HOVER_EDITED <markdown line> (before the save)
--   WROTE | LEDGER <line count> | HOVER <markdown line> | HOVER_OTHER <markdown line> (an untouched line)
--   LENS <line> <title> | HINT <line> <character> <label> | BLAME <line of :IntentBlame> | DIAG … | PASS
--   (or FAIL: <why>)
-- The lenses are the plugin's: nothing here asks for them, so they prove the refresh on :write.
-- Environment: WS (workspace), FILE (relative to WS), SERVER_CMD, PLUGIN_DIR (clients/neovim),
-- EDIT_LINE (0-based), EDIT_TEXT, OTHER_LINE (0-based, an unedited line), LEDGER (relative to WS),
-- BLAME_RANGE (":first,last" of :IntentBlame, 1-based), TIMEOUT_MS.
-- Every wait has a deadline; on failure everything seen so far is printed before exiting 1.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local out, env, ws, file, cmd, timeout = h.out, h.env, h.ws, h.file, h.cmd, h.timeout
local edit_line = tonumber(env("EDIT_LINE"))
local other_line = tonumber(env("OTHER_LINE"))
local edit_text = env("EDIT_TEXT")
local ledger = ws .. "/" .. env("LEDGER")

local bufnr
local function fail(msg)
  out("FAIL: " .. msg)
  if bufnr then
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      out(string.format("SEEN %d %d %s %s", d.lnum, d.col, tostring(d.code), (d.message:gsub("\n", "\\n"))))
    end
  end
  vim.cmd("cquit 1")
end

--- Polls `check` until it returns a value (not nil/false) or the deadline passes; returns that value.
--- Unlike vim.wait(cond), `check` may itself wait (buf_request_sync), which vim.wait's callback must not.
local function poll(check)
  local deadline = vim.uv.now() + timeout
  repeat
    local value = check()
    if value then
      return value
    end
    vim.wait(50) -- a polling interval, not a sleep that stands in for a condition
    vim.uv.update_time()
  until vim.uv.now() > deadline
  return nil
end

local function hover_text(line)
  local reply = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = line, character = 1 },
  }, timeout) or {}
  for _, r in pairs(reply) do
    if r.err then
      fail("hover error: " .. vim.inspect(r.err))
      return nil
    end
    local c = r.result and r.result.contents
    if type(c) == "table" and type(c.value) == "string" then
      return c.value
    elseif type(c) == "string" then
      return c
    end
  end
  return ""
end
local function print_lines(prefix, text)
  for _, l in ipairs(vim.split(text, "\n", { plain = true })) do
    out(prefix .. " " .. l)
  end
end

local function ledger_lines()
  local f = io.open(ledger, "r")
  if not f then
    return 0
  end
  local n = 0
  for l in f:lines() do
    if l:match("%S") then
      n = n + 1
    end
  end
  f:close()
  return n
end

out("NVIM " .. tostring(vim.version()))
vim.cmd("filetype on")
h.setup_plugin()

vim.cmd("edit " .. vim.fn.fnameescape(file))
bufnr = vim.api.nvim_get_current_buf()
local client
if not vim.wait(timeout, function()
  client = require("intent_lsp").client()
  return client ~= nil and client.initialized == true and vim.lsp.buf_is_attached(bufnr, client.id)
end, 20) then
  return fail("the intent-lsp client did not start and attach (root " .. tostring(require("intent_lsp").root_dir(bufnr)) .. ")")
end
out(string.format("CLIENT %s %s", client.name, client.config.root_dir))

vim.api.nvim_buf_set_lines(bufnr, edit_line, edit_line + 1, false, { edit_text })
-- The server has the change once it answers about it (requests after a didChange see that change).
local edited = poll(function()
  local text = hover_text(edit_line)
  return text and text:find("Edited, not saved yet", 1, true) and text
end)
if not edited then
  return fail("hover on the edited line never said it was edited but not saved: " .. tostring(hover_text(edit_line)))
end
print_lines("HOVER_EDITED", edited)

-- :write as a user does it: Neovim sends willSave, willSaveWaitUntil, writes the file, sends didSave.
vim.cmd("write")
out("WROTE")
if not vim.wait(timeout, function()
  return ledger_lines() >= 1
end, 20) then
  return fail("no record in " .. ledger .. " after :write")
end
out("LEDGER " .. ledger_lines())

-- The record is written before the document is re-attributed; the hover says when that happened.
local attributed = poll(function()
  local text = hover_text(edit_line)
  return text and text:find("trace `", 1, true) and text
end)
if not attributed then
  return fail("hover on the saved line never showed a trace: " .. tostring(hover_text(edit_line)))
end
print_lines("HOVER", attributed)
print_lines("HOVER_OTHER", hover_text(other_line) or "")

-- CodeLens as the plugin keeps it: 0.12 follows the server's refresh, 0.10 refreshes on BufWritePost.
-- Each lens as { line, title }; 0.12 wraps them as { client_id, lens }.
local function lenses()
  local list = {}
  local got = vim.lsp.codelens.enable and vim.lsp.codelens.get({ bufnr = bufnr }) or vim.lsp.codelens.get(bufnr)
  for _, l in ipairs(got) do
    local lens = l.lens or l
    table.insert(list, { line = lens.range.start.line, title = lens.command and lens.command.title or "<unresolved>" })
  end
  table.sort(list, function(a, b)
    return a.line < b.line
  end)
  return list
end
if not vim.wait(timeout, function()
  for _, lens in ipairs(lenses()) do
    if lens.line == edit_line then
      return true
    end
  end
  return false
end, 20) then
  for _, lens in ipairs(lenses()) do
    out(string.format("SEEN LENS %d %s", lens.line, lens.title))
  end
  return fail("no CodeLens on the saved line after :write")
end
for _, lens in ipairs(lenses()) do
  out(string.format("LENS %d %s", lens.line, lens.title))
end

-- Inlay hints: the same block label, at the end of the block's first line.
vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
if not vim.wait(timeout, function()
  return #vim.lsp.inlay_hint.get({ bufnr = bufnr }) > 0
end, 20) then
  return fail("vim.lsp.inlay_hint.get() stayed empty after enabling inlay hints")
end
for _, h in ipairs(vim.lsp.inlay_hint.get({ bufnr = bufnr })) do
  local label = h.inlay_hint.label
  if type(label) == "table" then
    local parts = {}
    for _, p in ipairs(label) do
      table.insert(parts, p.value)
    end
    label = table.concat(parts)
  end
  out(string.format("HINT %d %d %s", h.inlay_hint.position.line, h.inlay_hint.position.character, label))
end

-- :IntentBlame over a range, as a user types it; its lines arrive through vim.notify.
local blame_text
local notify = vim.notify
vim.notify = function(msg, level)
  if type(msg) == "string" and msg:find(" │ ", 1, true) then
    blame_text = msg
  else
    notify(msg, level)
  end
end
vim.cmd(env("BLAME_RANGE"):sub(2) .. "IntentBlame")
if not vim.wait(timeout, function()
  return blame_text ~= nil
end, 20) then
  return fail(":IntentBlame printed nothing")
end
vim.notify = notify
print_lines("BLAME", blame_text)

for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  out(string.format("DIAG %d %s %s", d.lnum, tostring(d.code), (d.message:gsub("\n", "\\n"))))
end

h.finish(client)
