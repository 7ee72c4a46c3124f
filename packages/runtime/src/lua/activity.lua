--[[
  The bot's activity log (keys.activity): one ordered stream of what happened to the bot, written
  by the step that does it. A line `--!include activity.lua` brings this in.
    activity_add(activity stream, kind, data JSON) -> the entry's stream id, `0-<position>`: the
      positions count the bot's entries from 1 (`0-*` ids), so a reader sees what was trimmed
      kinds: "call" (a Bot API call, as the request log has it), "update" (an update appended),
      "attempt" (a webhook delivery attempt), "confirm" (updates confirmed by an offset or a 2xx),
      "drop" (an update given up), "payment", "refund", "renewal", "replay"
    activity_json({ { name, JSON text or nil }, ... }) -> a JSON object of the members given (nil ones
      left out), in order; ids and amounts go in as their digits, since a Lua number (and cjson)
      rounds past 14 digits
  The stream keeps the newest ACTIVITY_KEPT entries (ACTIVITY_SIZE in packages/shared).
]]
local ACTIVITY_KEPT = 1000

local function activity_add(key, kind, data)
  local t = redis.call("TIME")
  local ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  return redis.call("XADD", key, "MAXLEN", ACTIVITY_KEPT, "0-*", "k", kind, "t", ms, "d", data)
end

local function activity_json(members)
  local parts = {}
  for _, m in ipairs(members) do
    if m[2] ~= nil then parts[#parts + 1] = '"' .. m[1] .. '":' .. m[2] end
  end
  return "{" .. table.concat(parts, ",") .. "}"
end
