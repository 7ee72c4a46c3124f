--[[
  The retry timer lets a bot go (its run delivered everything it could, or the webhook changed or
  went): `retry_at` leaves its status, and the answer says whether a drain job is wanted now.
  KEYS[1] webhook: webhook hash    KEYS[2] status: webhook status hash    KEYS[3] log: update log
  Returns the ticket of the bot's open drain epoch when updates are pending for its webhook
  (drain-epoch.lua's drain_ensure), else "".
]]
--!include drain-epoch.lua
redis.call("HDEL", KEYS[2], "retry_at")
return drain_ensure(KEYS[1], KEYS[3])
