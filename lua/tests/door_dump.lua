-- lua/tests/door_dump.lua INPUTS PROFILE [POLICYFILE]: urisan.check of each
-- input (a file of "LENGTH\n" + bytes records), one line each: the table
-- as JSON; a string of printable ASCII as it is, any other (and one that
-- begins "h:" or "?:") hex-encoded with the prefix "h:", so that bytes that
-- are no UTF-8 reach the comparison (lua_door_test.py, and the doors
-- lua-5.1 and lua-5.3 of tests/door_equality.py) unchanged. With
-- URISAN_DOOR_CALL=check_link the inputs are judged by urisan.check_link
-- instead (the rspamd plugin's call, the door rspamd).
--
-- The encoding is strict, so that the comparison sees what a Lua caller
-- sees (doc/lua.md): urisan.null is JSON null; a table whose keys are
-- 1..n (n >= 0: an empty table too) is an array; a table whose keys are
-- all strings is an object (its keys sorted: a table keeps no order);
-- true and false are booleans; an integer is a number. Anything else - a
-- table with mixed or other keys, a float (Lua 5.3's math.type; in
-- LuaJIT a number with a fraction), another userdata, a function - is
-- written as a string "?:" and what it is, which no value of
-- `urisan check --json` equals.
local urisan = require "urisan"
local path, profile, pfile = arg[1], arg[2], arg[3]
local pol = urisan.policy{ profile = profile, file = pfile }
local call = urisan[os.getenv("URISAN_DOOR_CALL") or "check"]

local HEX = {}
for b = 0, 255 do HEX[string.char(b)] = string.format("%02x", b) end
local function hex(s)
    return (s:gsub(".", HEX))
end

local function json_str(s)
    return '"' .. s:gsub('[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end) .. '"'
end

local enc
local function enc_table(t, out)
    local n, strs, other = 0, {}, nil
    for k in pairs(t) do
        if type(k) == "string" then
            strs[#strs + 1] = k
        elseif type(k) == "number" and k >= 1 and k % 1 == 0 then
            n = n + 1
        else
            other = type(k)
        end
    end
    if other or (n > 0 and #strs > 0) or (n > 0 and t[n] == nil) then
        out[#out + 1] = json_str("?:table with keys " .. (other or "mixed"))
        return
    end
    if #strs == 0 then
        out[#out + 1] = "["
        for i = 1, n do
            if i > 1 then out[#out + 1] = "," end
            enc(t[i], out)
        end
        out[#out + 1] = "]"
        return
    end
    table.sort(strs)
    out[#out + 1] = "{"
    for i, k in ipairs(strs) do
        if i > 1 then out[#out + 1] = "," end
        out[#out + 1] = json_str(k) .. ":"
        enc(t[k], out)
    end
    out[#out + 1] = "}"
end

local function is_integer(v)
    if math.type then return math.type(v) == "integer" end   -- Lua 5.3, 5.4
    return v % 1 == 0 and v > -2^53 and v < 2^53               -- LuaJIT, 5.1: doubles
end

enc = function(v, out)
    local ty = type(v)
    if v == urisan.null and ty == "userdata" then out[#out + 1] = "null"
    elseif ty == "string" and not v:find("[^ -~]") and not v:find("^[h?]:") then
        out[#out + 1] = '"' .. v:gsub('[\\"]', '\\%0') .. '"'
    elseif ty == "string" then out[#out + 1] = '"h:' .. hex(v) .. '"'
    elseif ty == "boolean" then out[#out + 1] = tostring(v)
    elseif ty == "number" and is_integer(v) then out[#out + 1] = string.format("%d", v)
    elseif ty == "number" then out[#out + 1] = json_str("?:number " .. tostring(v))
    elseif ty == "table" then enc_table(v, out)
    else out[#out + 1] = json_str("?:" .. ty) end
end

local f = assert(io.open(path, "rb"))
local data = f:read("*a")
f:close()
local pos, w = 1, io.stdout
while pos <= #data do
    local nl = data:find("\n", pos, true)
    local n = tonumber(data:sub(pos, nl - 1))
    local s = data:sub(nl + 1, nl + n)
    pos = nl + n + 1
    local out = {}
    enc(call(s, { policy = pol }), out)
    w:write(table.concat(out), "\n")
end
