--[[
  deleteWebhook (and setWebhook with an empty url) in one step: removes the webhook and its
  delivery status, drops pending updates when asked (otherwise they stay for getUpdates).
  KEYS[1] webhook: webhook hash    KEYS[2] status: webhook status hash    KEYS[3] log: update log
  ARGV[1] drop: "1" to drop pending updates
  Returns 1 when a webhook was removed, else 0.
]]
local removed = redis.call("DEL", KEYS[1])
redis.call("DEL", KEYS[2])
if ARGV[1] == "1" then redis.call("DEL", KEYS[3]) end
return removed
