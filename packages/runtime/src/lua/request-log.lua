--[[
  The request log's write, in record-request.lua and in poll-updates.lua (a getUpdates answered at
  once writes its own entry in its read's step). A line `--!include request-log.lua` brings it in.
    request_log_write(bot hash, request log list, kept, entries, activity stream)
      appends the entry JSONs (oldest first) and keeps the newest `kept`, only for a bot that still
      exists, so a call racing the bot's deletion leaves nothing behind; each is also a "call"
      entry of the bot's activity log. 1 when written, else 0.
]]
--!include activity.lua
local function request_log_write(bot_key, log_key, kept, entries, activity_key)
  if redis.call("EXISTS", bot_key) == 0 then return 0 end
  redis.call("RPUSH", log_key, unpack(entries))
  redis.call("LTRIM", log_key, -tonumber(kept), -1)
  for _, entry in ipairs(entries) do activity_add(activity_key, "call", entry) end
  return 1
end
