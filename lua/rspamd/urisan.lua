--[[
urisan.lua - an rspamd plugin (rspamd 3.4, LuaJIT): every URL of a message
judged by the urisan Lua module under a profile and policy file
(doc/lua.md "rspamd"). Configured in local.d/urisan.conf; symbols:

  URISAN_DENY             a URL the policy denies
  URISAN_HOMOGRAPH        a URL whose host looks like another (UTS #39)
  URISAN_NESTED_INTERNAL  a URL carrying, in a parameter, a URL of an
                          internal address or name (loopback, private,
                          link-local, reserved, internal or one-label name)
  URISAN_HANDLER          a URL whose scheme starts a local program
                          (handler_scheme: ms-word:, search-ms:, hcp: ...)
  URISAN_FLAG             a URL the policy only flags

each with the URL and the reasons as options. The URLs are the ones
urisan.extract_mail finds in the message as `urisan extract --mail` and
the milter read it (its parts, HTML, attachments: PDF, Office documents,
QR codes, HTML/SVG/.url files, calendar invites; a reader limit is
denied), and the ones rspamd extracted (task:get_urls) that urisan did
not; each distinct URL is judged once.
]]
local N = "urisan"
local rspamd_logger = require "rspamd_logger"

local opts = rspamd_config:get_all_opt(N)
if not opts then
  return -- not configured: no local.d/urisan.conf section
end

local settings = {
  profile = "mail",
  policy_file = nil,
  lua_cpath = nil,        -- where urisan.so is, when not in LuaJIT's path
  max_urls = 200,         -- URLs judged per message
  max_options = 10,       -- URLs listed per symbol
  max_message = 67108864, -- bytes of a message given to urisan.extract_mail
  score_deny = 6.0,
  score_homograph = 8.0,
  score_nested_internal = 6.0,
  score_handler = 4.0,
  score_user_content = 1.0,
  score_shortener = 0.5,
  score_brand_misplaced = 2.0,
  score_flag = 0.5,
}
for k, v in pairs(opts) do
  settings[k] = v
end
if settings.lua_cpath then
  package.cpath = settings.lua_cpath .. ";" .. package.cpath
end

local urisan = require "urisan"
-- A policy that cannot be built (the message has the file, line, column
-- and word) is logged, and every message then gets URISAN_DENY with that
-- message as its option: fail closed and visible, never a scan under
-- another policy and never a silent skip.
local built, policy = pcall(urisan.policy, { profile = settings.profile,
                                             file = settings.policy_file })
local policy_error = nil
if not built then
  policy_error = tostring(policy)
  policy = nil
  rspamd_logger.errx(rspamd_config, "%s: every message gets URISAN_DENY until it is fixed",
                     policy_error)
end

-- flags of a nested URL that make it internal
local INTERNAL = {
  ip_loopback = true, ip_private = true, ip_link_local = true, ip_reserved = true,
  internal_name = true, single_label = true, ip_embedded = true,
}

local function has(list, name)
  for _, v in ipairs(list) do
    if v == name then return true end
  end
  return false
end

local function nested_internal(r)
  if type(r.nested) ~= "table" then return false end
  for _, n in ipairs(r.nested) do
    for _, f in ipairs(n.flags) do
      if INTERNAL[f] then return true end
    end
  end
  return has(r.deny_reasons, "nested_ip_denied") or has(r.deny_reasons, "nested_host_denied")
end

-- The rows of the message: urisan.extract_mail on the message as
-- received (its parts, HTML, attachments - PDF, Office documents, QR
-- codes, HTML/SVG/.url files, calendar invites - as `urisan extract
-- --mail` reads them, each link decided there), then rspamd's URLs
-- (task:get_urls: href values, redirects it followed, ...) that urisan
-- did not find, each judged once by urisan.check_link. rspamd keeps a
-- sentence's closing "." or ")" in a URL of plain text; one that is a URL
-- urisan found plus such trailing punctuation is that URL, already judged
-- (urisan reads the text as a mail client does, RFC 3986 Appendix C). A
-- link urisan found written in Unicode counts as seen in its text as
-- written too.
local function task_rows(task)
  local seen, rows = {}, {}
  local function add(url, r)
    if #rows < settings.max_urls then rows[#rows + 1] = { url = url, r = r } end
  end
  local content = task:get_content()
  local msg = content and tostring(content) or ""
  if #msg > settings.max_message then
    add(("the message (%d bytes > max_message): not read by urisan"):format(#msg),
        { verdict = "flag", flag_reasons = { "mail_limit" }, flags = {},
          reasons = { "mail_limit" }, deny_reasons = {} })
  elseif urisan.extract_mail then
    local ok, list = pcall(urisan.extract_mail, msg, policy)
    if not ok then
      add("the message: " .. tostring(list), { verdict = "deny", deny_reasons = { "mail_limit" },
                                               flags = {}, reasons = { "mail_limit" },
                                               flag_reasons = {} })
      list = {}
    end
    for _, row in ipairs(list) do
      local url = row.context == "limit" and ("limit " .. row.limit .. ": " .. row.limit_message)
                  or row.uri
      if not seen[url] then
        seen[url] = true
        if row.written then seen[row.written] = true end
        add(url, row)
      end
    end
  end
  for _, u in ipairs(task:get_urls() or {}) do
    local s = u:get_raw() or u:get_text()
    local trimmed = s and s:gsub("[%.,;:!%?%)%]'\"]+$", "")
    if s and s ~= "" and not seen[s] and not (trimmed ~= s and seen[trimmed]) then
      seen[s] = true
      -- the URL a mail reader's client opens: a link written in Unicode
      -- (https://bücher.de/) is judged as the URI a browser opens for it
      -- (UTS #46: https://xn--bcher-kva.de/), as the milter and
      -- `urisan extract --mail` judge it
      add(s, urisan.check_link(s, policy))
    end
  end
  return rows
end

local function check_urls(task)
  if policy_error then
    task:insert_result("URISAN_DENY", 1.0, "policy error: " .. policy_error)
    return
  end
  local found = { URISAN_DENY = {}, URISAN_HOMOGRAPH = {}, URISAN_NESTED_INTERNAL = {},
                  URISAN_HANDLER = {}, URISAN_FLAG = {}, URISAN_USER_CONTENT = {},
                  URISAN_SHORTENER = {}, URISAN_BRAND_MISPLACED = {} }
  -- the deceptive-host flags, each a symbol of its own (doc/policy.md
  -- "Deceptive hosts": alone they are weak, their combinations deny)
  local deceptive = { user_content = "URISAN_USER_CONTENT", shortener = "URISAN_SHORTENER",
                      brand_misplaced = "URISAN_BRAND_MISPLACED" }
  local function note(sym, url, reasons)
    local t = found[sym]
    if #t < settings.max_options then
      t[#t + 1] = url .. " (" .. table.concat(reasons, ",") .. ")"
    end
  end
  for _, row in ipairs(task_rows(task)) do
    local url, r = row.url, row.r
    if r.verdict == "deny" then note("URISAN_DENY", url, r.deny_reasons)
    elseif r.verdict == "flag" then note("URISAN_FLAG", url, r.flag_reasons) end
    if has(r.flags, "homograph") then
      note("URISAN_HOMOGRAPH", url, { r.host_imitates and r.host_imitates ~= urisan.null and
                                      tostring(r.host_imitates) or "homograph" })
    end
    -- a row of the message does not list its nested URLs: their flags
    -- are the analysis of urisan.check_link (its verdict stays the row's)
    local n = r
    if r.nested == nil and r.uri and has(r.flags, "nested_url") then
      n = urisan.check_link(r.uri, policy)
    end
    if nested_internal(n) then note("URISAN_NESTED_INTERNAL", url, n.reasons) end
    if has(r.flags, "handler_scheme") then note("URISAN_HANDLER", url, { "handler_scheme" }) end
    for flag, sym in pairs(deceptive) do
      if has(r.flags, flag) then note(sym, url, { flag }) end
    end
  end
  for sym, list in pairs(found) do
    if #list > 0 then task:insert_result(sym, 1.0, list) end
  end
end

local id = rspamd_config:register_symbol({
  name = "URISAN_CHECK",
  type = "callback",
  callback = check_urls,
  group = "urisan",
})
local function virtual(name, score, description)
  rspamd_config:register_symbol({
    name = name, type = "virtual", parent = id, score = score,
    group = "urisan", description = description,
  })
end
virtual("URISAN_DENY", settings.score_deny, "a URL the urisan policy denies")
virtual("URISAN_HOMOGRAPH", settings.score_homograph, "a URL host that looks like another (UTS #39)")
virtual("URISAN_NESTED_INTERNAL", settings.score_nested_internal,
        "a URL carrying a URL of an internal address or name in a parameter")
virtual("URISAN_HANDLER", settings.score_handler,
        "a URL whose scheme starts a local program (ms-word:, search-ms:, hcp: ...)")
virtual("URISAN_USER_CONTENT", settings.score_user_content,
        "a URL on a platform anyone publishes on (pages.dev, web.app, blob storage ...)")
virtual("URISAN_SHORTENER", settings.score_shortener, "a URL of a link shortener")
virtual("URISAN_BRAND_MISPLACED", settings.score_brand_misplaced,
        "a protected brand's name in the host or path of another site")
virtual("URISAN_FLAG", settings.score_flag, "a URL the urisan policy flags")
rspamd_logger.infox(rspamd_config, "urisan %s: profile %s, policy file %s", urisan.version(),
                    settings.profile, settings.policy_file or "none")
