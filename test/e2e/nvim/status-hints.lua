-- Neovim end-to-end driver: the plugin's statusline component under auto-selection and for a file out of
-- the selected intent's scope, and an inlay hint drawn for a just-saved line with no further edit (the
-- server's workspace/inlayHint/refresh after the save's record lands). Run by test/e2e/neovim.test.ts,
-- which asserts on the lines printed here:
--   NVIM <version> | CLIENT <name> <root> | STATUS <statusline text> | WROTE | HINT <line> <character> <label>
--   | PASS   (or FAIL: <why>)
-- Environment: WS (workspace, nothing selected), FILE (relative to WS, owned by one IN_PROGRESS intent),
-- SERVER_CMD, PLUGIN_DIR (clients/neovim), EDIT_LINE (0-based), EDIT_TEXT, AUTO_STATUS (the statusline
-- under auto-selection), SELECT_ID (an intent that does not own FILE), OUT_STATUS (the statusline then),
-- LEDGER (relative to WS), TIMEOUT_MS. Every wait has a deadline.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local out, env, ws, file, timeout = h.out, h.env, h.ws, h.file, h.timeout
local edit_line = tonumber(env("EDIT_LINE"))
local edit_text = env("EDIT_TEXT")
local ledger = ws .. "/" .. env("LEDGER")

local function fail(msg)
  out("FAIL: " .. msg)
  vim.cmd("cquit 1")
end

local function ledger_has_record()
  local f = io.open(ledger, "r")
  if not f then
    return false
  end
  local text = f:read("*a")
  f:close()
  return text:match("%S") ~= nil
end

local function hints(bufnr)
  local list = {}
  for _, hint in ipairs(vim.lsp.inlay_hint.get({ bufnr = bufnr })) do
    local label = hint.inlay_hint.label
    if type(label) == "table" then
      local parts = {}
      for _, p in ipairs(label) do
        table.insert(parts, p.value)
      end
      label = table.concat(parts)
    end
    table.insert(list, string.format("%d %d %s", hint.inlay_hint.position.line, hint.inlay_hint.position.character, label))
  end
  return list
end

out("NVIM " .. tostring(vim.version()))
vim.cmd("filetype on")
h.setup_plugin()
vim.o.statusline = "%f %= %{v:lua.require'intent_lsp'.statusline()} "

vim.cmd("edit " .. vim.fn.fnameescape(file))
local bufnr = vim.api.nvim_get_current_buf()
local client
if not vim.wait(timeout, function()
  client = require("intent_lsp").client()
  return client ~= nil and client.initialized == true and vim.lsp.buf_is_attached(bufnr, client.id)
end, 20) then
  return fail("the intent-lsp client did not start and attach")
end
out(string.format("CLIENT %s %s", client.name, client.config.root_dir))

-- nothing is selected: the file's one IN_PROGRESS owner is auto-selected
out("STATUS " .. h.wait_status(bufnr, env("AUTO_STATUS")))

-- inlay hints on before the edit, as a user who keeps them on; the file has no record yet, so none
vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
vim.api.nvim_buf_set_lines(bufnr, edit_line, edit_line + 1, false, { edit_text })
vim.cmd("write")
out("WROTE")
if not vim.wait(timeout, ledger_has_record, 20) then
  return fail("no record in " .. ledger .. " after :write")
end
-- no edit, no scroll, no request from here: the hint must come from the server's refresh alone
if not vim.wait(timeout, function()
  for _, hint in ipairs(vim.lsp.inlay_hint.get({ bufnr = bufnr })) do
    if hint.inlay_hint.position.line == edit_line then
      return true
    end
  end
  return false
end, 20) then
  for _, l in ipairs(hints(bufnr)) do
    out("SEEN HINT " .. l)
  end
  return fail("no inlay hint on the saved line after :write (without another edit)")
end
for _, l in ipairs(hints(bufnr)) do
  out("HINT " .. l)
end

-- an intent that does not own the file: the statusline says the file is out of its scope
vim.cmd("IntentSelect " .. env("SELECT_ID"))
out("STATUS " .. h.wait_status(bufnr, env("OUT_STATUS")))

h.finish(client)
