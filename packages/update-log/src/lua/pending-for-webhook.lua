--[[
  Whether a bot's log needs a drain (requestDrain's "recheck"): the ticket of its open drain epoch,
  opening one when updates are pending for its webhook (drain-epoch.lua), else "". With
  `unlessHeld`, "" too while the retry timer holds the bot (its status has `retry_at`): its run
  asks for the job when it lets the bot go.
  KEYS[1] webhook: webhook hash    KEYS[2] log: update log    KEYS[3] status: webhook status hash
  ARGV[1] unlessHeld: "1" or "0"
]]
--!include drain-epoch.lua
if ARGV[1] == "1" and redis.call("HEXISTS", KEYS[3], "retry_at") == 1 then return "" end
return drain_ensure(KEYS[1], KEYS[2])
