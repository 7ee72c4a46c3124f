--[[
  A webhook bot's drain epochs: the `drain` field of its webhook hash. An epoch opens when updates
  are pending for the webhook and no drain owns them, and closes in the step that leaves the log
  empty; each epoch has one drain job, whose id names it (its ticket: "<generation>_<epoch>", see
  drainJobId), so one drain runs per bot and an append after a close gets a job of its own
  instead of being deduplicated into a job that is ending. The field holds N while epoch N is
  open and -N once it closed; it goes with the webhook (a new webhook's epochs start again, under
  a new generation). `--!include drain-epoch.lua` brings these in.
    drain_state(webhook)                the webhook's generation (nil: no webhook) and epoch field
                                        (a number, 0 when absent), in one read; drain_fields(flat)
                                        the same from the hash's HGETALL
    drain_ticket(generation, epoch)     the open epoch's ticket, nil when none is open
    drain_begin(webhook, generation, epoch)
                                        opens the next epoch: its ticket
    drain_open(webhook)                 opens an epoch unless one is open: its ticket when this
                                        call opened it, else 0 (none is wanted: no webhook, or an
                                        open epoch's drain takes the update)
    drain_ensure(webhook, log)          the open epoch's ticket, opening one when updates are
                                        pending; "" with no webhook or nothing pending
    drain_close(webhook, log, ticket, generation, epoch)
                                        closes the ticket's epoch when the log is empty, given
                                        drain_state's answer: "closed", "more" (updates are
                                        pending) or "stale" (the ticket's epoch is not the open
                                        one, or the webhook changed)
]]
local function drain_state(webhook)
  local state = redis.call("HMGET", webhook, "generation", "drain")
  return state[1] or nil, tonumber(state[2] or "0")
end

-- drain_state's answer from a webhook hash already read (HGETALL's field/value list).
local function drain_fields(flat)
  local generation, epoch = nil, 0
  for i = 1, #flat, 2 do
    if flat[i] == "generation" then generation = flat[i + 1] end
    if flat[i] == "drain" then epoch = tonumber(flat[i + 1]) end
  end
  return generation, epoch
end

-- The open epoch's ticket; nil when none is open.
local function drain_ticket(generation, epoch)
  if not generation or epoch <= 0 then return nil end
  return generation .. "_" .. epoch
end

-- Opens the epoch after `epoch` (a closed one, or 0): its ticket.
local function drain_begin(webhook, generation, epoch)
  redis.call("HSET", webhook, "drain", 1 - epoch)
  return generation .. "_" .. (1 - epoch)
end

local function drain_open(webhook)
  local generation, epoch = drain_state(webhook)
  if not generation or epoch > 0 then return 0 end
  return drain_begin(webhook, generation, epoch)
end

local function drain_ensure(webhook, log)
  local generation, epoch = drain_state(webhook)
  if not generation or redis.call("XLEN", log) == 0 then return "" end
  return drain_ticket(generation, epoch) or drain_begin(webhook, generation, epoch)
end

local function drain_close(webhook, log, ticket, generation, epoch)
  if drain_ticket(generation, epoch) ~= ticket then return "stale" end
  if redis.call("XLEN", log) > 0 then return "more" end
  redis.call("HSET", webhook, "drain", -epoch)
  return "closed"
end
