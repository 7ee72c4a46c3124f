--[[
  Whether a bot's log needs a drain (requestDrain's "recheck"): the number of pending updates when
  the bot has a webhook, else 0.
  KEYS[1] webhook: webhook hash    KEYS[2] log: update log
]]
if redis.call("EXISTS", KEYS[1]) == 0 then return 0 end
return redis.call("XLEN", KEYS[2])
