-- intent-lsp for Neovim: starts the language server for files in an intent workspace and adds
-- :IntentSelect, :IntentClear, :IntentStatus, :IntentBlame, a statusline component and CodeLens that
-- follows saves. Works on Neovim 0.7 and later; 0.11+ goes through vim.lsp.config/vim.lsp.enable so
-- users can override it the standard way.
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

-- client:request on 0.11+, client.request before; returns whether the request went out.
local function request(client, method, params, handler, bufnr)
  if has("0.11") then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- Sends workspace/executeCommand with one argument object (`arguments` plus the buffer's uri);
--- `on_result(result)` runs on success, errors are shown.
function M.execute(command, arguments, on_result)
  local client = M.client()
  if not client then
    return notify("no language server is running (open a file in an intent workspace)", vim.log.levels.WARN)
  end
  -- quiet: the plugin shows the answer itself, so the server's window/showMessage would repeat it
  local args = vim.tbl_extend("keep", arguments or {}, { uri = buf_uri(), quiet = true })
  local params = { command = command, arguments = { args } }
  local function handler(err, result)
    if err then
      return notify(command .. ": " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    if on_result then
      on_result(result)
    end
  end
  request(client, "workspace/executeCommand", params, handler, vim.api.nvim_get_current_buf())
end

-- The statusline shows a cached text per buffer, refreshed on events (attach, the plugin's own commands,
-- and published diagnostics: the server re-publishes when the selection changes, from a terminal's
-- `intent select` too), so drawing it never sends a request. The text is the server's answer to
-- intent.activeIntent for the buffer's file: the intent its edits count under, however it was chosen.
local status_text = {} -- bufnr -> text
local status_busy = {} -- bufnr -> an activeIntent request is out
local status_again = {} -- bufnr -> an event came while it was out

--- The statusline text for an answer of intent.activeIntent: "INT-003", "INT-003 (auto)", "no intent",
--- with " · out of scope" / " · not in progress" when the file's edits have that problem, "exempt".
function M.status_label(r)
  if type(r) ~= "table" then
    return ""
  end
  if r.exempt == true then
    return "exempt"
  end
  local intent = type(r.intent) == "table" and r.intent.id or nil
  if not intent then
    return "no intent"
  end
  local text = intent .. (r.how == "auto-selected" and " (auto)" or "")
  if r.problem == "out-of-scope" then
    text = text .. " · out of scope"
  elseif r.problem == "intent-not-in-progress" then
    text = text .. " · not in progress"
  end
  return text
end

local function refresh_status(client, bufnr)
  if status_busy[bufnr] then
    status_again[bufnr] = true
    return
  end
  local valid = vim.api.nvim_buf_is_valid(bufnr)
  local uri = valid and vim.api.nvim_buf_get_name(bufnr) ~= "" and vim.uri_from_bufnr(bufnr) or nil
  local params = { command = "intent.activeIntent", arguments = { { uri = uri, quiet = true } } }
  status_busy[bufnr] = true
  local sent = request(client, "workspace/executeCommand", params, function(err, result)
    status_busy[bufnr] = nil
    if not err and type(result) == "table" then
      local text = M.status_label(result)
      if status_text[bufnr] ~= text then
        status_text[bufnr] = text
        vim.cmd("redrawstatus!")
      end
    end
    if status_again[bufnr] then
      status_again[bufnr] = nil
      refresh_status(client, bufnr)
    end
  end, valid and bufnr or nil)
  if not sent then
    status_busy[bufnr] = nil
  end
end

local function refresh_all_status()
  for _, client in ipairs(clients({ name = NAME })) do
    for bufnr in pairs(client.attached_buffers or {}) do
      refresh_status(client, bufnr)
    end
  end
end

--- For 'statusline' / 'winbar': the intent the buffer's edits count under ("INT-003", "INT-003 (auto)"
--- when auto-selected, "no intent"), with " · out of scope" when the file is outside its scope; "" where
--- intent-lsp is not attached. Reads a cache.
---   vim.o.statusline = "%f %= %{v:lua.require'intent_lsp'.statusline()} "
function M.statusline(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if not clients({ name = NAME, bufnr = bufnr })[1] then
    return ""
  end
  return status_text[bufnr] or ""
end

local function describe(intent)
  return string.format("%s — %s [%s] %s", intent.id, intent.name or "", intent.status or "?",
    table.concat(intent.owned_scope or {}, ", "))
end

--- Selects an intent for the workspace; `start` also moves a PENDING or BLOCKED one to IN_PROGRESS.
function M.select(id, start)
  M.execute("intent.selectIntent", { id = id, start = start or nil }, function()
    refresh_all_status()
    notify((start and "started and selected " or "selected ") .. id)
  end)
end

local VERB = { start = "Start and select ", resume = "Resume and select " }

--- The picker's entries: the intents the server offers for selection (`selectAs`), in catalogue order,
--- as VS Code's picker lists them; closed work (complete, archived) is not offered.
function M.pickable(intents)
  local out = {}
  for _, intent in ipairs(type(intents) == "table" and intents or {}) do
    if type(intent.selectAs) == "string" then table.insert(out, intent) end
  end
  return out
end

local function pick()
  M.execute("intent.listIntents", nil, function(intents)
    local choices = M.pickable(intents)
    if #choices == 0 then
      return notify("no intent to select in " .. MARKER .. " (:IntentStatus lists them all)", vim.log.levels.WARN)
    end
    local function label(intent)
      return (VERB[intent.selectAs] or "") .. describe(intent)
    end
    vim.ui.select(choices, { prompt = "Select intent", format_item = label }, function(choice)
      if choice then
        M.select(choice.id, choice.selectAs ~= "select")
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

-- The columns of `intent blame` in a terminal (server/src/cli/blame.ts), so both read the same.
local function blame_cells(row)
  if row.kind ~= "traced" then
    return { row.kind or "?", "", "", "" }
  end
  local model = row.model and row.model:match("([^/]+)$") or nil
  local when = (row.timestamp or ""):sub(1, 16):gsub("T", " ")
  return {
    (row.intent or "no intent") .. (row.outOfScope == true and " (out of scope)" or ""),
    model or row.person or row.contributor or "",
    when,
    (row.traceId or ""):sub(1, 8) .. (row.exact and "" or "?"),
  }
end

--- The rows of `intent.blame` as the lines `intent blame FILE:L-L` prints.
function M.format_blame(rows)
  local cells, widths = {}, { 0, 0, 0, 0 }
  for i, row in ipairs(rows) do
    cells[i] = blame_cells(row)
    for c = 1, 4 do
      widths[c] = math.max(widths[c], vim.fn.strchars(cells[i][c]))
    end
  end
  local number_width = #tostring(rows[#rows] and rows[#rows].line or 1)
  local lines = {}
  for i, row in ipairs(rows) do
    local padded = {}
    for c = 1, 4 do
      padded[c] = cells[i][c] .. string.rep(" ", widths[c] - vim.fn.strchars(cells[i][c]))
    end
    local number = tostring(row.line)
    lines[i] = string.rep(" ", number_width - #number) .. number .. "  " .. table.concat(padded, "  ") .. " │ " .. (row.text or "")
  end
  return lines
end

local function blame(line1, line2)
  M.execute("intent.blame", { startLine = line1 - 1, endLine = line2 - 1 }, function(result)
    local rows = type(result) == "table" and result.lines
    if type(rows) ~= "table" or #rows == 0 then
      return notify("no blame for these lines", vim.log.levels.WARN)
    end
    vim.notify(table.concat(M.format_blame(rows), "\n"))
  end)
end

local function complete_ids(prefix)
  local client = M.client()
  if not client then
    return {}
  end
  local params = { command = "intent.listIntents", arguments = { { uri = buf_uri(), quiet = true } } }
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
    M.execute("intent.clearIntent", nil, function()
      refresh_all_status()
      notify("selection cleared")
    end)
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

-- CodeLens: 0.12 re-requests lenses when the server asks (workspace/codeLens/refresh); older versions
-- do not support that request, so the lens of a save would only appear after the next edit. There the
-- lenses are refreshed on these events, and once the server has handled a save (intent/saveProcessed):
-- a refresh at :write alone can ask before the save's record exists.
local LENS_EVENTS = { "BufEnter", "BufWritePost", "InsertLeave", "CursorHold" }

local function refresh_lenses(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  if has("0.10") then
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  elseif vim.api.nvim_get_current_buf() == bufnr then
    vim.lsp.codelens.refresh()
  end
end

local function on_save_processed(_, result)
  local fname = result and result.uri and vim.uri_to_fname(result.uri)
  local bufnr = fname and vim.fn.bufnr(fname)
  if bufnr and bufnr > 0 then
    vim.schedule(function()
      refresh_lenses(bufnr)
    end)
  end
end

local function enable_codelens(client, bufnr)
  local caps = client.server_capabilities or {}
  if not caps.codeLensProvider then
    return
  end
  if vim.lsp.codelens.enable then
    vim.lsp.codelens.enable(true, { bufnr = bufnr })
    return
  end
  -- a notification only this server sends: the global table serves it without touching user handlers
  vim.lsp.handlers["intent/saveProcessed"] = vim.lsp.handlers["intent/saveProcessed"] or on_save_processed
  local function refresh()
    refresh_lenses(bufnr)
  end
  refresh()
  vim.api.nvim_create_autocmd(LENS_EVENTS, {
    group = vim.api.nvim_create_augroup("intent_lsp_codelens_" .. bufnr, { clear = true }),
    buffer = bufnr,
    callback = function()
      vim.schedule(refresh)
    end,
  })
end

local ui_opts = {}

local function on_attach(client, bufnr)
  refresh_status(client, bufnr)
  if ui_opts.codelens ~= false then
    enable_codelens(client, bufnr)
  end
end

-- Attach, detach and diagnostics events, whichever way the client was started (this setup, or the
-- user's own vim.lsp.config/vim.lsp.enable). Returns false on Neovim 0.7, which has no LspAttach:
-- there `config.on_attach` does it.
local function create_autocmds()
  local group = vim.api.nvim_create_augroup("intent_lsp_ui", { clear = true })
  vim.api.nvim_create_autocmd("DiagnosticChanged", {
    group = group,
    callback = function(ev)
      for _, client in ipairs(clients({ name = NAME, bufnr = ev.buf })) do
        refresh_status(client, ev.buf)
      end
    end,
  })
  if vim.fn.exists("##LspAttach") ~= 1 then
    return false
  end
  vim.api.nvim_create_autocmd("LspAttach", {
    group = group,
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      if client and client.name == NAME then
        on_attach(client, ev.buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd("LspDetach", {
    group = group,
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      if client and client.name == NAME then
        status_text[ev.buf] = nil
        pcall(vim.api.nvim_del_augroup_by_name, "intent_lsp_codelens_" .. ev.buf)
      end
    end,
  })
  return true
end

--- opts: cmd, settings ({ intentLsp = … }), filetypes (default: all), on_attach, capabilities,
--- handlers, init_options, root_dir (a fixed path; default: found per buffer), codelens (default true:
--- show the attribution lenses and keep them current).
--- On 0.11+ this is vim.lsp.config("intent_lsp", …) with only the options given here, then
--- vim.lsp.enable("intent_lsp"): what you pass to vim.lsp.config("intent_lsp", …) yourself still holds.
function M.setup(opts)
  opts = opts or {}
  ui_opts = { codelens = opts.codelens }
  create_commands()
  local user_on_attach = opts.on_attach
  local attach_hook = user_on_attach
  if not create_autocmds() then
    attach_hook = function(client, bufnr)
      on_attach(client, bufnr)
      if user_on_attach then
        user_on_attach(client, bufnr)
      end
    end
  end

  if has("0.11") and vim.lsp.config and vim.lsp.enable then
    local fixed = opts.root_dir
    local config = {
      root_dir = function(bufnr, on_dir)
        local root = fixed or M.root_dir(bufnr)
        if root then
          on_dir(root)
        end
      end,
      on_attach = attach_hook,
    }
    for _, key in ipairs({ "cmd", "settings", "init_options", "capabilities", "handlers", "filetypes" }) do
      config[key] = opts[key]
    end
    vim.lsp.config(NAME, config)
    vim.lsp.enable(NAME)
    return
  end

  local config = {
    name = NAME,
    cmd = opts.cmd or { "intent-lsp", "--stdio" },
    settings = opts.settings,
    init_options = opts.init_options,
    capabilities = opts.capabilities,
    handlers = opts.handlers,
    on_attach = attach_hook,
    root_dir = opts.root_dir,
  }

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
