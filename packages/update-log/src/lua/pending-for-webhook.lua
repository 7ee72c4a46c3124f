--[[
  Whether a bot's log needs a drain (requestDrain's "recheck"): the ticket of its open drain epoch,
  opening one when updates are pending for its webhook (drain-epoch.lua), else "".
  KEYS[1] webhook: webhook hash    KEYS[2] log: update log
]]
--!include drain-epoch.lua
return drain_ensure(KEYS[1], KEYS[2])
