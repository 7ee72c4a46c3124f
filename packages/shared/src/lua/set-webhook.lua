--[[
  setWebhook (with a URL) in one step: drops pending updates when asked, stores allowed_updates,
  replaces the webhook (a new generation) and clears the delivery status. The caller then ends
  the bot's waiting polls and makes sure a drain runs when updates are pending (the returned
  count); if it dies first, a waiting poll's next read answers 409 and the workers' reconciler
  schedules the drain.
  KEYS[1] webhook: webhook hash    KEYS[2] status: webhook status hash
  KEYS[3] allowedUpdates: allowed_updates set    KEYS[4] log: update log
  ARGV[1] drop: "1" to drop pending updates    ARGV[2] allowedMode: "keep", "default" or "set"
  ARGV[3] fieldValues: N, the number of webhook field/value values
  ARGV[4..] values: those N, then the allowed kinds
  Returns the number of pending updates.
]]
if ARGV[1] == "1" then redis.call("DEL", KEYS[4]) end
local n = tonumber(ARGV[3])
if ARGV[2] ~= "keep" then redis.call("DEL", KEYS[3]) end
if ARGV[2] == "set" then redis.call("SADD", KEYS[3], unpack(ARGV, 4 + n)) end
redis.call("DEL", KEYS[1], KEYS[2])
redis.call("HSET", KEYS[1], unpack(ARGV, 4, 3 + n))
return redis.call("XLEN", KEYS[4])
