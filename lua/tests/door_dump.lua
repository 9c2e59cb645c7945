-- lua/tests/door_dump.lua INPUTS PROFILE [POLICYFILE]: urisan.check of each
-- input (a file of "LENGTH\n" + bytes records), one line each: the table
-- as JSON with every string hex-encoded ("h:" prefix), so that bytes that
-- are no UTF-8 reach the comparison (lua_door_test.py) unchanged.
local urisan = require "urisan"
local path, profile, pfile = arg[1], arg[2], arg[3]
local pol = urisan.policy{ profile = profile, file = pfile }

local function hex(s)
    return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end))
end

local enc
local function enc_table(t, out)
    if next(t) == nil or t[1] ~= nil then
        out[#out + 1] = "["
        for i = 1, #t do
            if i > 1 then out[#out + 1] = "," end
            enc(t[i], out)
        end
        out[#out + 1] = "]"
        return
    end
    local keys = {}
    for k in pairs(t) do keys[#keys + 1] = k end
    table.sort(keys)
    out[#out + 1] = "{"
    for i, k in ipairs(keys) do
        if i > 1 then out[#out + 1] = "," end
        out[#out + 1] = '"' .. k .. '":'
        enc(t[k], out)
    end
    out[#out + 1] = "}"
end

enc = function(v, out)
    local ty = type(v)
    if v == urisan.null then out[#out + 1] = "null"
    elseif ty == "string" then out[#out + 1] = '"h:' .. hex(v) .. '"'
    elseif ty == "boolean" then out[#out + 1] = tostring(v)
    elseif ty == "number" then out[#out + 1] = string.format("%d", v)
    elseif ty == "table" then enc_table(v, out)
    else error("unexpected " .. ty) end
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
    enc(urisan.check(s, { policy = pol }), out)
    w:write(table.concat(out), "\n")
end
