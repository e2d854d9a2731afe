-- What every Neovim e2e driver shares: printing, required environment, and making a headless run's
-- messages visible (notifications, server logs, a debug lsp.log the test prints when it fails).
--   local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local h = {}

function h.out(s)
  io.stdout:write(s, "\n")
end

function h.env(name)
  local value = vim.env[name]
  if not value then
    error("set " .. name)
  end
  return value
end

h.ws = h.env("WS")
h.file = h.ws .. "/" .. h.env("FILE")
h.cmd = vim.split(h.env("SERVER_CMD"), " ", { trimempty = true })
h.timeout = tonumber(vim.env.TIMEOUT_MS or "15000")

-- Messages that would otherwise vanish in a headless run (e.g. "No code actions available",
-- "server does not support command …") are the best clue when an action does nothing.
vim.notify = function(msg, level)
  h.out(string.format("NOTIFY %s %s", tostring(level), (tostring(msg):gsub("\n", "\\n"))))
end
for _, method in ipairs({ "window/logMessage", "window/showMessage" }) do
  vim.lsp.handlers[method] = function(_, result)
    h.out(string.format("SERVER %s %s", method, ((result and result.message or ""):gsub("\n", "\\n"))))
  end
end
-- the test prints lsp.log (isolated XDG_STATE_HOME) when it fails; set_log_level is deprecated in 0.11
local log = vim.lsp.log
if log and log.set_level then log.set_level("debug") else vim.lsp.set_log_level("debug") end

--- The plugin, set up exactly as clients/neovim/README.md says for this Neovim version (SERVER_CMD stands
--- for { "intent-lsp", "--stdio" }); prints SETUP <route> <enabled>.
function h.setup_plugin()
  vim.opt.runtimepath:append(h.env("PLUGIN_DIR"))
  if vim.fn.has("nvim-0.11") == 1 then
    vim.lsp.config("intent_lsp", { cmd = h.cmd })
    require("intent_lsp").setup()
    h.out("SETUP vim.lsp.config " .. tostring(vim.lsp.is_enabled and vim.lsp.is_enabled("intent_lsp")))
  else
    require("intent_lsp").setup({ cmd = h.cmd })
    h.out("SETUP setup true")
  end
end

--- Waits until the plugin's statusline component for `bufnr` reads `want`; returns what it read last.
function h.wait_status(bufnr, want)
  local seen
  vim.wait(h.timeout, function()
    seen = vim.api.nvim_buf_call(bufnr, function()
      return require("intent_lsp").statusline()
    end)
    return seen == want
  end, 20)
  return seen
end

--- Stops the client (a clean shutdown lets the server drop its session file; not fatal if slow), prints
--- PASS and quits.
function h.finish(client)
  local id = client.id
  if vim.fn.has("nvim-0.11") == 1 then
    client:stop()
  else
    vim.lsp.stop_client(id)
  end
  if not vim.wait(h.timeout, function()
    return vim.lsp.get_client_by_id(id) == nil
  end, 20) then
    h.out("NOTE: server did not exit within the deadline")
  end
  h.out("PASS")
  vim.cmd("qall!")
end

return h
