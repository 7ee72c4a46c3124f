--[[
  The bot's activity log (keys.activity): one ordered stream of what happened to the bot, written
  by the step that does it. A line `--!include activity.lua` brings this in.
    activity_add(activity stream, kind, data JSON) -> the entry's position (its stream id)
      kinds: "call" (a Bot API call, as the request log has it), "update" (an update appended),
      "attempt" (a webhook delivery attempt), "confirm" (updates confirmed by an offset or a 2xx),
      "drop" (an update given up), "payment", "refund", "renewal", "replay"
  The stream keeps the newest ACTIVITY_KEPT entries (ACTIVITY_SIZE in packages/runtime/src/activity.ts).
]]
local ACTIVITY_KEPT = 1000

local function activity_add(key, kind, data)
  return redis.call("XADD", key, "MAXLEN", ACTIVITY_KEPT, "*", "k", kind, "d", data)
end
