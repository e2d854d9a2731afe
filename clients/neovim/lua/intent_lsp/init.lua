-- intent-lsp for Neovim: starts the language server for files in an intent workspace and adds
-- :IntentSelect, :IntentClear, :IntentStatus and :IntentBlame. Works on Neovim 0.7 and later;
-- 0.11+ goes through vim.lsp.config/vim.lsp.enable so users can override it the standard way.
local M = {}

local NAME = "intent_lsp"
local MARKER = ".orchestration/active_intents.yaml"

local function has(version)
  return vim.fn.has("nvim-" .. version) == 1
end

local function notify(msg, level)
  vim.notify("intent-lsp: " .. msg, level or vim.log.levels.INFO)
end

-- `found` is what findfile/finddir returned; climb `levels` directories from it.
local function ancestor(found, levels)
  local p = vim.fn.fnamemodify(found, ":p"):gsub("/$", "")
  for _ = 1, levels do
    p = vim.fn.fnamemodify(p, ":h")
  end
  return p
end

--- The workspace root for a buffer: the nearest directory with .orchestration/active_intents.yaml,
--- else the nearest with .git (a directory, or a file in worktrees and submodules); nil otherwise.
function M.root_dir(bufnr)
  bufnr = bufnr or 0
  if vim.bo[bufnr].buftype ~= "" then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" then
    return nil
  end
  local dir = vim.fn.fnamemodify(name, ":p:h") .. ";"
  local intents = vim.fn.findfile(MARKER, dir)
  if intents ~= "" then
    return ancestor(intents, 2)
  end
  local git = vim.fn.finddir(".git", dir)
  if git == "" then
    git = vim.fn.findfile(".git", dir)
  end
  if git ~= "" then
    return ancestor(git, 1)
  end
  return nil
end

local function clients(filter)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients(filter)
  end
  -- 0.7-0.9: no filters on get_active_clients in 0.7, so filter here
  local out = {}
  for _, c in ipairs(vim.lsp.get_active_clients()) do
    if c.name == filter.name and (not filter.bufnr or vim.lsp.buf_is_attached(filter.bufnr, c.id)) then
      table.insert(out, c)
    end
  end
  return out
end

--- The intent-lsp client for the current buffer, else any running one (commands work from any window).
function M.client()
  return clients({ name = NAME, bufnr = vim.api.nvim_get_current_buf() })[1] or clients({ name = NAME })[1]
end

-- The uri tells a multi-root server which workspace a command is about; scratch buffers have none.
local function buf_uri()
  return vim.api.nvim_buf_get_name(0) ~= "" and vim.uri_from_bufnr(0) or nil
end

--- Sends workspace/executeCommand with one argument object (`arguments` plus the buffer's uri);
--- `on_result(result)` runs on success, errors are shown.
function M.execute(command, arguments, on_result)
  local client = M.client()
  if not client then
    return notify("no language server is running (open a file in an intent workspace)", vim.log.levels.WARN)
  end
  local args = vim.tbl_extend("keep", arguments or {}, { uri = buf_uri() })
  local params = { command = command, arguments = { args } }
  local function handler(err, result)
    if err then
      return notify(command .. ": " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    if on_result then
      on_result(result)
    end
  end
  local bufnr = vim.api.nvim_get_current_buf()
  if has("0.11") then
    client:request("workspace/executeCommand", params, handler, bufnr)
  else
    client.request("workspace/executeCommand", params, handler, bufnr)
  end
end

local function describe(intent)
  return string.format("%s — %s [%s] %s", intent.id, intent.name or "", intent.status or "?",
    table.concat(intent.owned_scope or {}, ", "))
end

--- Selects an intent for the workspace; `start` also moves a PENDING one to IN_PROGRESS.
function M.select(id, start)
  M.execute("intent.selectIntent", { id = id, start = start or nil }, function()
    notify((start and "started and selected " or "selected ") .. id)
  end)
end

local function pick()
  M.execute("intent.listIntents", nil, function(intents)
    if type(intents) ~= "table" or #intents == 0 then
      return notify("no intents in " .. MARKER, vim.log.levels.WARN)
    end
    local function label(intent)
      return describe(intent) .. (intent.status == "PENDING" and "  (starts it)" or "")
    end
    vim.ui.select(intents, { prompt = "Select intent", format_item = label }, function(choice)
      if choice then
        M.select(choice.id, choice.status == "PENDING")
      end
    end)
  end)
end

local function status()
  local client = M.client()
  if not client then
    return notify("not running for this buffer", vim.log.levels.WARN)
  end
  M.execute("intent.listIntents", nil, function(intents)
    local lines, selected = {}, nil
    for _, intent in ipairs(type(intents) == "table" and intents or {}) do
      selected = intent.selected == true and intent.id or selected
      table.insert(lines, (intent.selected == true and "* " or "  ") .. describe(intent))
    end
    table.insert(lines, 1, string.format("intent-lsp (%s): %s", client.config.root_dir or "?",
      selected and ("selected " .. selected) or "nothing selected (auto-selection applies)"))
    vim.notify(table.concat(lines, "\n"))
  end)
end

local function blame(line1, line2)
  M.execute("intent.blame", { startLine = line1 - 1, endLine = line2 - 1 }, function(result)
    local text
    if type(result) == "string" then
      text = result
    elseif type(result) == "table" and type(result.text) == "string" then
      text = result.text
    else
      text = vim.inspect(result)
    end
    vim.notify(text)
  end)
end

local function complete_ids(prefix)
  local client = M.client()
  if not client then
    return {}
  end
  local params = { command = "intent.listIntents", arguments = { { uri = buf_uri() } } }
  local reply
  if has("0.11") then
    reply = client:request_sync("workspace/executeCommand", params, 1000, 0)
  else
    reply = client.request_sync("workspace/executeCommand", params, 1000, 0)
  end
  local ids = {}
  for _, intent in ipairs(reply and type(reply.result) == "table" and reply.result or {}) do
    if vim.startswith(intent.id, prefix) then
      table.insert(ids, intent.id)
    end
  end
  return ids
end

local function create_commands()
  local command = vim.api.nvim_create_user_command
  command("IntentSelect", function(o)
    if o.args ~= "" then M.select(o.args, o.bang) else pick() end
  end, { nargs = "?", bang = true, complete = complete_ids,
    desc = "intent-lsp: select the active intent (! also starts a PENDING one)" })
  command("IntentClear", function()
    M.execute("intent.clearIntent", nil, function() notify("selection cleared") end)
  end, { desc = "intent-lsp: clear the selected intent" })
  command("IntentStatus", status, { desc = "intent-lsp: intents and the current selection" })
  command("IntentBlame", function(o)
    blame(o.line1, o.line2)
  end, { range = true, desc = "intent-lsp: which intent and contributor wrote these lines" })
end

-- 0.7 has no vim.lsp.start: reuse one client per root by hand.
local legacy_clients = {}
local function start_legacy(config, bufnr)
  local id = legacy_clients[config.root_dir]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(config)
    legacy_clients[config.root_dir] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
end

local function attach(config, bufnr)
  local root = config.root_dir or M.root_dir(bufnr)
  if not root then
    return
  end
  local c = vim.tbl_extend("force", config, { root_dir = root })
  if vim.lsp.start then
    vim.lsp.start(c, { bufnr = bufnr })
  else
    start_legacy(c, bufnr)
  end
end

--- opts: cmd, settings ({ intentLsp = … }), filetypes (default: all), on_attach, capabilities,
--- handlers, init_options, root_dir (a fixed path; default: found per buffer).
function M.setup(opts)
  opts = opts or {}
  local config = {
    name = NAME,
    cmd = opts.cmd or { "intent-lsp", "--stdio" },
    settings = opts.settings,
    init_options = opts.init_options,
    capabilities = opts.capabilities,
    handlers = opts.handlers,
    on_attach = opts.on_attach,
    root_dir = opts.root_dir,
  }
  create_commands()

  if has("0.11") and vim.lsp.config and vim.lsp.enable then
    local fixed = opts.root_dir
    config.name = nil
    config.filetypes = opts.filetypes
    config.root_dir = function(bufnr, on_dir)
      local root = fixed or M.root_dir(bufnr)
      if root then
        on_dir(root)
      end
    end
    vim.lsp.config(NAME, config)
    vim.lsp.enable(NAME)
    return
  end

  local group = vim.api.nvim_create_augroup("intent_lsp", { clear = true })
  -- Without a filetype list every file counts, so hook buffer reads rather than FileType (which never
  -- fires for files without a detected type). Scheduling lets filetype detection run first, so the
  -- server is told the right languageId.
  local events = opts.filetypes and { "FileType" } or { "BufReadPost", "BufNewFile" }
  vim.api.nvim_create_autocmd(events, {
    group = group,
    pattern = opts.filetypes or "*",
    callback = function(ev)
      vim.schedule(function()
        if vim.api.nvim_buf_is_valid(ev.buf) then
          attach(config, ev.buf)
        end
      end)
    end,
  })
  -- buffers opened before setup() ran
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.api.nvim_buf_get_name(bufnr) ~= ""
      and (not opts.filetypes or vim.tbl_contains(opts.filetypes, vim.bo[bufnr].filetype)) then
      attach(config, bufnr)
    end
  end
end

return M
