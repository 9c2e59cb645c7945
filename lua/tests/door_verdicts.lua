-- lua/tests/door_verdicts.lua INPUTS PROFILE [POLICYFILE]: the verdict and
-- flags urisan.check gives each input (a file of "LENGTH\n" + bytes
-- records), one "VERDICT\tFLAG,FLAG\tNESTED" line each, NESTED the count of
-- nested URLs listed, ":", and the flags of each ("FLAG,FLAG" joined by "|"): the Lua door of
-- tests/door_equality.py (lua/tests/door_lua.py).
--
-- With URISAN_DOOR_CALL=check_link the inputs are judged by
-- urisan.check_link instead (the rspamd plugin's call on the URL text
-- rspamd hands it: a link written in Unicode read as the URI a browser
-- opens).
local urisan = require "urisan"
local path, profile, pfile = arg[1], arg[2], arg[3]
local call = urisan[os.getenv("URISAN_DOOR_CALL") or "check"]
local with_uri = os.getenv("URISAN_DOOR_CALL") == "check_link"   -- a 4th field: the uri judged
local pol = urisan.policy{ profile = profile, file = pfile }
local f = assert(io.open(path, "rb"))
local data = f:read("*a")
f:close()
local pos, out = 1, {}
while pos <= #data do
    local nl = data:find("\n", pos, true)
    local n = tonumber(data:sub(pos, nl - 1))
    local r = call(data:sub(nl + 1, nl + n), pol)
    pos = nl + n + 1
    local nested = {}
    for i, nu in ipairs(r.nested or {}) do
        nested[i] = table.concat(nu.flags, ",")
    end
    out[#out + 1] = r.verdict .. "\t" .. table.concat(r.flags, ",") .. "\t" ..
                    #nested .. ":" .. table.concat(nested, "|") ..
                    (with_uri and "\t" .. r.uri or "")
end
io.write(table.concat(out, "\n"), #out > 0 and "\n" or "")
