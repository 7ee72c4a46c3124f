--[[
  A webhook bot's drain epochs: the `drain` field of its webhook hash. An epoch opens when updates
  are pending for the webhook and no drain owns them, and closes in the step that leaves the log
  empty; each epoch has one drain job, whose id names it (its ticket: "<generation>_<epoch>", see
  drainJobId), so one drain runs per bot and an append after a close gets a job of its own
  instead of being deduplicated into a job that is ending. The field holds N while epoch N is
  open and -N once it closed; it goes with the webhook (a new webhook's epochs start again, under
  a new generation). `--!include drain-epoch.lua` brings these in.
    drain_open(webhook)                 opens an epoch unless one is open: its ticket when this
                                        call opened it, else 0 (none is wanted: no webhook, or an
                                        open epoch's drain takes the update)
    drain_ensure(webhook, log)          the open epoch's ticket, opening one when updates are
                                        pending; "" with no webhook or nothing pending
    drain_close(webhook, log, ticket)   closes the ticket's epoch when the log is empty: "closed",
                                        "more" (updates are pending) or "stale" (the ticket's epoch
                                        is not the open one, or the webhook changed)
]]
local function drain_ticket(webhook, epoch)
  return (redis.call("HGET", webhook, "generation") or "") .. "_" .. epoch
end

local function drain_open(webhook)
  if redis.call("EXISTS", webhook) == 0 then return 0 end
  local epoch = tonumber(redis.call("HGET", webhook, "drain") or "0")
  if epoch > 0 then return 0 end
  redis.call("HSET", webhook, "drain", 1 - epoch)
  return drain_ticket(webhook, 1 - epoch)
end

local function drain_ensure(webhook, log)
  if redis.call("EXISTS", webhook) == 0 or redis.call("XLEN", log) == 0 then return "" end
  local epoch = tonumber(redis.call("HGET", webhook, "drain") or "0")
  if epoch <= 0 then
    epoch = 1 - epoch
    redis.call("HSET", webhook, "drain", epoch)
  end
  return drain_ticket(webhook, epoch)
end

local function drain_close(webhook, log, ticket)
  local epoch = redis.call("HGET", webhook, "drain")
  if not epoch or tonumber(epoch) <= 0 or drain_ticket(webhook, epoch) ~= ticket then return "stale" end
  if redis.call("XLEN", log) > 0 then return "more" end
  redis.call("HSET", webhook, "drain", -tonumber(epoch))
  return "closed"
end
