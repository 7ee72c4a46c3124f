--[[
  Deletes a bot and every per-bot key in one step: its token fails on every gateway at once, and
  a drain running for its webhook hears it on the bot's wake channel and ends.
  KEYS[1..] all: every per-bot key, the bot hash first (redis-keys.ts botKeys)
  ARGV[1] wakeChannel: the bot's wake shard channel   ARGV[2] message: the message announcing the webhook's end
  ARGV[3] tag: delete only a bot created with this tag ("" for any bot)
  Returns {username, tag} (to release them in the global indexes; tag "" when none), false when
  there is no bot, or 0 when the bot has another tag (nothing is deleted).
]]
local bot = redis.call("HMGET", KEYS[1], "username", "tag")
if not bot[1] then return false end
if ARGV[3] ~= "" and bot[2] ~= ARGV[3] then return 0 end
redis.call("DEL", unpack(KEYS))
redis.call("SPUBLISH", ARGV[1], ARGV[2])
return { bot[1], bot[2] or "" }
