-- lua/tests/test_urisan.lua: the urisan Lua module's API and its argument
-- handling (run by meson for each Lua built: LuaJIT, 5.3, 5.4; under
-- ASan in a sanitizer build). Property part: every function with every
-- wrong argument type gets a Lua error naming the argument, never a
-- crash; strings with NUL bytes are judged whole; huge strings are
-- bounded (too_long, nothing past max_uri read).
local urisan = require "urisan"
local fails, count = 0, 0

local function ok(cond, what)
    count = count + 1
    if not cond then
        fails = fails + 1
        io.stderr:write("FAIL: " .. what .. "\n")
    end
end

local function raises(pat, f, ...)
    local st, err = pcall(f, ...)
    return not st and type(err) == "string" and err:find(pat) ~= nil, err
end

local function has(list, name)
    for _, v in ipairs(list) do if v == name then return true end end
    return false
end

-- check: check --json's keys
local r = urisan.check("http://user@example.com:8080/a/b?q=1#f")
ok(r.verdict == "flag" and r.flag_reasons[1] == "nondefault_port" and r.flag_reasons[2] == "userinfo", "flagged")
r = urisan.check("http://example.com/a/b?q=1#f")
ok(r.verdict == "allow" and r.valid == true and r.error == urisan.null, "plain URI allowed")
local c = urisan.check("http://user@example.com:8080/a/b?q=1#f").components
ok(c.scheme == "http" and c.userinfo == "user" and c.host == "example.com" and c.port == "8080" and
   c.path == "/a/b" and c.query == "q=1" and c.fragment == "f" and c.host_type == "reg-name",
   "components")
ok(r.components.port == urisan.null and
   r.components.path == "/a/b" and r.components.query == "q=1" and
   r.components.fragment == "f" and r.components.host_type == "reg-name", "components")
ok(r.truncated == false and r.length == 28 and r.host_ip == urisan.null, "truncated, length")
ok(#r.reasons == 0 and #r.deny_reasons == 0 and #r.flag_reasons == 0, "no reasons")
ok(r.nested == nil, "no nested key without nested_url")
r = urisan.check("/x")
ok(r.components.scheme == urisan.null and r.components.host_type == urisan.null, "nulls")

local ssrf = urisan.policy{ profile = "ssrf" }
r = urisan.check("http://169.254.169.254/latest/meta-data/", { policy = ssrf })
ok(r.verdict == "deny" and has(r.deny_reasons, "ip_link_local") and
   r.host_ip == "169.254.169.254", "metadata denied under ssrf")
r = urisan.check("https://example.com/?next=http://127.0.0.1:6379/", ssrf)
ok(r.verdict == "deny" and has(r.flags, "nested_url") and #r.nested == 1 and
   r.nested[1].uri == "http://127.0.0.1:6379/" and r.nested[1].depth == 1 and
   r.nested_capped == false, "nested URL listed (policy given directly)")
r = urisan.check("http://a.com/%2e%2e/%2e%2e/etc/passwd")
ok(r.verdict == "deny" and r.deny_reasons[1] == "dot_above_root" and
   has(r.flag_reasons, "encoded_dot"), "traversal denied")
local v, deny, flag = urisan.verdict("http://a.com/%2e%2e/%2e%2e/etc/passwd")
ok(v == "deny" and deny == "dot_above_root" and flag:find("encoded_dot"), "verdict()")
v, deny, flag = urisan.verdict("http://a.com/")
ok(v == "allow" and deny == "" and flag == "", "verdict() allow")
r = urisan.check("../../x", { base = "http://h/a/b/c" })
ok(r.resolved == "http://h/x" and r.resolve_error == urisan.null, "base")

-- with the host layer (liburisan-host): the host as a reader sees it
local h = urisan.check("https://xn--pple-43d.com/login")
if h.host_unicode ~= nil then
    -- the default policy protects no name: host_imitates null
    ok(has(h.flags, "homograph") and h.host_unicode == "\208\176pple.com" and
       h.host_imitates == urisan.null and h.registrable_domain == "xn--pple-43d.com" and
       h.host_skeleton == "apple.corn",
       "homograph and host keys through the host layer")
    -- the mail profile protects apple.com: named; an ASCII look-alike
    -- flagged lookalike; a plain ASCII host has no skeleton shown
    local mail = urisan.policy{ profile = "mail" }
    local m = urisan.check("https://xn--pple-43d.com/login", mail)
    ok(m.verdict == "deny" and m.host_imitates == "apple.com", "mail: homograph of apple.com")
    m = urisan.check("https://paypa1.com/", mail)
    ok(has(m.flags, "lookalike") and m.host_imitates == "paypal.com", "mail: lookalike")
    m = urisan.check("https://www.example.com/", mail)
    ok(m.host_skeleton == urisan.null and m.host_imitates == urisan.null, "mail: plain host")
    ok(urisan.verdict("https://xn--pple-43d.com/", urisan.policy{ text = "deny homograph\n" })
       == "deny", "deny homograph")
    ok(urisan.check("/relative").host_unicode == urisan.null, "no host: null host keys")
    local hits = urisan.extract("see https://xn--pple-43d.com/ now")
    ok(#hits == 1 and has(hits[1].flags, "homograph"), "extract: the host layer's flags")
else
    io.write("urisan built without the host layer: homograph checks skipped\n")
end

-- NUL and CR/LF bytes are bytes: judged whole, never cut at the NUL
r = urisan.check("http://a.com/\0x")
ok(r.length == 15 and r.uri == "http://a.com/\0x" and r.verdict == "deny" and
   has(r.flags, "ctl_raw"), "NUL judged")
ok(urisan.verdict("http://a.com/%0d%0aSet-Cookie:x") == "deny", "escaped CRLF")

-- huge strings: bounded
local big = "http://a.com/" .. string.rep("a", 4 * 1024 * 1024)
r = urisan.check(big)
ok(r.verdict == "deny" and r.error.code == "too_long" and r.length == #big, "4 MiB too_long")
ok(urisan.normalize(big) == nil, "normalize of 4 MiB refused")
local hits = urisan.extract(string.rep("see http://x.com/a ", 20000))
ok(#hits == 20000 and hits[1].uri == "http://x.com/a" and hits[20000].offset == 19999 * 19 + 4,
   "extract: every hit of a large text")
ok(#urisan.extract(string.rep("\0", 100000)) == 0, "extract of NULs")

-- extract_mail: a message's links as `urisan extract --mail --json`
if urisan.extract_mail then
    local msg = "From: a@example.org\nSubject: x\nMIME-Version: 1.0\n" ..
                "Content-Type: text/html\n\n<a href=\"http://0x7f.1/x\">pay</a>\n"
    local rows = urisan.extract_mail(msg, urisan.policy{ profile = "mail" })
    ok(#rows == 1 and rows[1].uri == "http://0x7f.1/x" and rows[1].context == "html-href" and
       rows[1].part == "1" and rows[1].display == "pay" and rows[1].verdict == "deny",
       "extract_mail: an HTML link, decided")
    local bad = pcall(urisan.extract_mail, msg, { polcy = urisan.policy{} })
    ok(not bad, "extract_mail: an unknown option key is an error")
else
    io.write("urisan built without liburisan-mail: extract_mail checks skipped\n")
end

-- resolve, normalize, equivalent, parse
ok(urisan.resolve("http://a/b/c/d;p?q", "../../g") == "http://a/g", "resolve")
local s, e = urisan.resolve("x", "y")
ok(s == nil and e:find("base_not_absolute"), "resolve error")
ok(urisan.resolve("http://a/b", "../../g", { above_root = "reject" }) == nil, "above_root reject")
ok(raises("above_root", urisan.resolve, "http://a/", "g", { above_root = "up" }), "above_root bad")
ok(urisan.normalize("HTTP://A.COM/%7e/./x") == "http://a.com/~/x", "normalize")
ok(urisan.equivalent("http://a.com/%7e", "HTTP://a.com/~") == true, "equivalent")
ok(urisan.equivalent("http://a.com/a", "http://a.com/b") == false, "not equivalent")
local p = urisan.parse("http://[::1]:80/")
ok(p.valid and p.components.host_type == "ipv6" and p.flags == nil, "parse")

-- policies: built once, errors with line, column and word
local good, msg = raises("text:2:6: unknown flag 'bogus_flag'", urisan.policy,
                        { text = "deny ip_private\nflag bogus_flag\n" })
ok(good, "policy error: line, column, word: " .. tostring(msg))
ok(raises("unknown profile 'nope'", urisan.policy, { profile = "nope" }), "unknown profile")
ok(raises("unknown option 'profil'", urisan.policy, { profil = "ssrf" }), "unknown option")
ok(raises("exclude", urisan.policy, { file = "/x", text = "" }), "file and text")
ok(raises("No such file", urisan.policy, { file = "/nonexistent/urisan.policy" }), "no file")
ok(raises("NUL", urisan.policy, { file = "/etc/passwd\0x" }), "file with NUL")
ok(raises("\\x00", urisan.policy, { text = "deny \0" }), "NUL word shown escaped")
local tmp = os.tmpname()
local f = io.open(tmp, "w")
f:write("# site\ndeny-host evil.example\n")
f:close()
local site = urisan.policy{ profile = "ssrf", file = tmp }
os.remove(tmp)
ok(urisan.verdict("https://evil.example/", site) == "deny", "file policy applies")
ok(urisan.verdict("http://10.0.0.1/", site) == "deny", "profile under the file")
ok(site:text():find("deny%-host evil.example"), "policy:text()")
ok(site:limits().max_uri == 8192, "policy:limits()")
ok(tostring(site):find("^urisan.policy"), "tostring")
ok(getmetatable(site) == "urisan.policy", "metatable protected")
ok(#urisan.profiles() >= 4 and urisan.flag_names()[1] ~= nil, "profiles, flag_names")

-- wrong types everywhere: a Lua error naming the argument, never a crash
local values = { 1, 2.5, true, false, {}, function() end, urisan.null,
                 coroutine.create(function() end), "x" }
local fns = {
    check = { "s", "o" }, verdict = { "s", "o" }, parse = { "s", "o" },
    normalize = { "s", "o" }, extract = { "s", "o" },
    resolve = { "s", "s", "o" }, equivalent = { "s", "s", "o" },
}
local calls = 0
for name, sig in pairs(fns) do
    for pos = 1, #sig do
        for _, bad in ipairs(values) do
            local args = {}
            for i = 1, #sig do args[i] = sig[i] == "s" and "http://a/" or nil end
            args[pos] = bad
            local st = pcall(urisan[name], args[1], args[2], args[3])
            calls = calls + 1
            local fine = (sig[pos] == "s" and type(bad) == "string") or
                         (sig[pos] == "o" and (type(bad) == "table" or bad == nil))
            if not fine and st then
                ok(false, name .. " accepted a " .. type(bad) .. " as argument " .. pos)
            end
        end
    end
    ok(not pcall(urisan[name]), name .. "() without arguments")
end
ok(calls > 100, "wrong-type calls made")
ok(raises("policy", urisan.check, "http://a/", { policy = "ssrf" }), "policy as a string")
ok(raises("base", urisan.check, "x", { base = 5 }), "base as a number")
ok(raises("expected", urisan.policy, "ssrf"), "policy{} needs a table")
ok(raises("profile", urisan.policy, { profile = 5 }), "profile as a number")
ok(raises("urisan.policy", site.text, {}), "method on a non-policy")

-- random bytes: never an error, always a verdict (a property over seeds)
math.randomseed(29)
for _ = 1, 3000 do
    local n = math.random(0, 200)
    local t = {}
    for i = 1, n do t[i] = string.char(math.random(0, 255)) end
    local s = "http://" .. table.concat(t)
    local st, res = pcall(urisan.check, s, ssrf)
    if not (st and (res.verdict == "allow" or res.verdict == "flag" or res.verdict == "deny")
            and res.length == #s) then
        ok(false, "random input: " .. tostring(res))
        break
    end
    local v2 = urisan.verdict(s, ssrf)
    if v2 ~= res.verdict then ok(false, "verdict() differs from check()") break end
end

-- check_request: the one request judgement (urisan_judge_request); the
-- table of check for the URI the origin receives
if urisan.check_request then
    local r = urisan.check_request{ scheme = "http", host = "www.example.com?a=", method = "GET",
                                    target = "/hq2?u=http://169.254.169.254/latest/meta-data/",
                                    policy = ssrf }
    ok(r.verdict == "deny" and r.request_reason == "bad_host_header" and
       r.deny_reasons[1] == "bad_host_header" and r.uri == urisan.null,
       "check_request: a Host with '?' is bad_host_header")
    r = urisan.check_request{ scheme = "http", host = { "a.example", "b.example" }, target = "/" }
    ok(r.verdict == "deny" and r.request_reason == "duplicate_header", "check_request: two Hosts")
    r = urisan.check_request{ scheme = "https", host = "www.example.com", target = "/a?b=c",
                              method = "GET" }
    local c = urisan.check("https://www.example.com/a?b=c")
    ok(r.verdict == "allow" and r.uri == "https://www.example.com/a?b=c" and
       r.request_reason == urisan.null and r.components.host == c.components.host,
       "check_request: an ordinary request is check of its URI")
    r = urisan.check_request{ host = "www.example.com", target = "/x", trust = "original-uri",
                              headers = { ["X-Original-URI"] = "/y", ["X-Original-Host"] = "o.example" } }
    ok(r.uri == "http://o.example/y", "check_request: a trusted X-Original-URI")
    ok(raises("unknown option 'hots'", urisan.check_request, { hots = "a", target = "/" }),
       "check_request: an unknown key names it")
    ok(raises("unknown header 'X%-Bogus'", urisan.check_request,
              { target = "/", headers = { ["X-Bogus"] = "1" } }), "check_request: unknown header")
    ok(raises("trust: 'nope'", urisan.check_request, { target = "/", trust = "nope" }),
       "check_request: a bad trust list")
end

-- an unknown key in any options table raises an error that names it
ok(raises("unknown option 'polcy'", urisan.verdict, "http://a/", { polcy = ssrf }),
   "verdict: {polcy=} names the key")
ok(raises("unknown option 'polcy'", urisan.check, "http://a/", { polcy = ssrf }),
   "check: {polcy=} names the key")
ok(raises("unknown option 'base'", urisan.parse, "http://a/", { base = "http://b/" }),
   "parse: base is no option of parse")
ok(raises("unknown option 'strict'", urisan.resolve, "http://a/", "b", { strict = true }),
   "resolve: a misspelt non_strict")
ok(raises("unknown option 'polciy'", urisan.extract, "see http://a/", { polciy = ssrf }),
   "extract: a misspelt policy")
ok(raises("unknown option 'number'", urisan.normalize, "http://a/", { [1] = true }),
   "normalize: a key that is no string")

collectgarbage()
collectgarbage()
io.write(string.format("%s: %d checks, %d failed\n", _VERSION, count, fails))
os.exit(fails == 0 and 0 or 1)
