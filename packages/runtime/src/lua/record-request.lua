--[[
  Appends entries to a bot's request log and keeps only the newest entries. Only for a bot that
  still exists, so a call racing the bot's deletion leaves nothing behind.
  KEYS[1] bot: bot hash   KEYS[2] log: request log list
  ARGV[1] kept: entries kept   ARGV[2..] entries: entry JSONs, oldest first (at most `kept`)
]]
if redis.call("EXISTS", KEYS[1]) == 0 then return 0 end
redis.call("RPUSH", KEYS[2], unpack(ARGV, 2))
redis.call("LTRIM", KEYS[2], -tonumber(ARGV[1]), -1)
return 1
