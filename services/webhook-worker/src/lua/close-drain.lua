--[[
  A drain that has nothing left to send ends its epoch (drain-epoch.lua): closed when the log is
  empty, so the next append opens an epoch with a job of its own.
  KEYS[1] webhook: webhook hash    KEYS[2] log: update log
  ARGV[1] ticket: the drain's epoch ticket
  Returns "closed", "more" (updates are pending: the drain reads them) or "stale" (the epoch is
  not the open one, or the webhook changed).
]]
--!include drain-epoch.lua
local generation, epoch = drain_state(KEYS[1])
return drain_close(KEYS[1], KEYS[2], ARGV[1], generation, epoch)
