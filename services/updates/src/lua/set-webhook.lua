--[[
  setWebhook (with a URL) in one step: drops pending updates when asked, stores allowed_updates,
  replaces the webhook (a new generation), clears the delivery status, ends the bot's poll claim and
  announces the change on the bot's wake channel (a waiting poll, on any gateway, answers 409; a
  drain running for the old webhook re-reads it at once). The caller then makes sure a drain runs when updates are pending (the returned
  count); if it dies first, the workers' reconciler schedules the drain.
  KEYS[1] webhook: webhook hash    KEYS[2] status: webhook status hash
  KEYS[3] allowedUpdates: allowed_updates set    KEYS[4] log: update log
  KEYS[5] pollOwner: poll owner string
  ARGV[1] drop: "1" to drop pending updates    ARGV[2] allowedMode: "keep", "default" or "set"
  ARGV[3] wakeChannel: wake shard channel    ARGV[4] message: the message announcing the change
  ARGV[5] fieldValues: N, the number of webhook field/value values
  ARGV[6..] values: those N, then the allowed kinds
  Returns the number of pending updates.
]]
--!include allowed-updates.lua
if ARGV[1] == "1" then redis.call("DEL", KEYS[4]) end
local n = tonumber(ARGV[5])
allowed_store(KEYS[3], ARGV[2], { unpack(ARGV, 6 + n) })
redis.call("DEL", KEYS[1], KEYS[2], KEYS[5])
redis.call("HSET", KEYS[1], unpack(ARGV, 6, 5 + n))
redis.call("SPUBLISH", ARGV[3], ARGV[4])
return redis.call("XLEN", KEYS[4])
