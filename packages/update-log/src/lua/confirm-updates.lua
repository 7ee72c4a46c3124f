--[[
  Confirms (deletes) updates of a bot's log that a webhook took (a 2xx) or that were given up
  (expired), and says so in the bot's activity log in the same step.
  KEYS[1] stream: update log stream        KEYS[2] activity: activity stream
  ARGV[1] attempt: the "attempt" entry's data JSON ("" for none: nothing was sent)
  ARGV[2] kind: "confirm" (taken) or "drop" (given up)   ARGV[3] data: that entry's data JSON
  ARGV[4..] ids: the update ids
  Returns how many updates were deleted; the confirm or drop entry is written only when some were.
]]
--!include activity.lua
local ids = {}
for i = 4, #ARGV do ids[#ids + 1] = ARGV[i] .. "-0" end
if ARGV[1] ~= "" then activity_add(KEYS[2], "attempt", ARGV[1]) end
local deleted = redis.call("XDEL", KEYS[1], unpack(ids))
if deleted > 0 then activity_add(KEYS[2], ARGV[2], ARGV[3]) end
return deleted
