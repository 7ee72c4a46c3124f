--[[
  Deletes a bot and every per-bot key in one step: its token fails on every gateway at once.
  KEYS[1..] all: every per-bot key, the bot hash first (redis-keys.ts botKeys)
  Returns the bot's username (to release it in the global index), or false when there is no bot.
]]
local username = redis.call("HGET", KEYS[1], "username")
if not username then return false end
redis.call("DEL", unpack(KEYS))
return username
