--[[
  Deletes a bot and every per-bot key in one step: its token fails on every gateway at once, and
  a drain running for its webhook hears it on the bot's wake channel and ends.
  KEYS[1..] all: every per-bot key, the bot hash first (redis-keys.ts botKeys)
  ARGV[1] wakeChannel: the bot's wake shard channel   ARGV[2] message: the message announcing the webhook's end
  Returns the bot's username (to release it in the global index), or false when there is no bot.
]]
local username = redis.call("HGET", KEYS[1], "username")
if not username then return false end
redis.call("DEL", unpack(KEYS))
redis.call("SPUBLISH", ARGV[1], ARGV[2])
return username
