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
