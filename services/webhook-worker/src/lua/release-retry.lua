--[[
  The retry timer lets a bot go (its run delivered everything it could, or the webhook changed or
  went): `retry_at` leaves its status, and the answer says whether a drain job is wanted now.
  KEYS[1] webhook: webhook hash    KEYS[2] status: webhook status hash    KEYS[3] log: update log
  Returns the pending updates when the bot has a webhook, else 0.
]]
redis.call("HDEL", KEYS[2], "retry_at")
if redis.call("EXISTS", KEYS[1]) == 0 then return 0 end
return redis.call("XLEN", KEYS[3])
