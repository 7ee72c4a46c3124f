--[[
  A drain's start in one round trip: the bot's webhook, its delivery status and the first entries
  of its log, unless the retry timer holds the bot (its status has `retry_at`). A drain job
  ("job") leaves such a bot alone, and runs only for the bot's open drain epoch (drain-epoch.lua:
  its ticket); the timer's own run ("retry") takes the bot, marking it "run", and finds nothing
  to take when the bot left the timer meanwhile (a setWebhook, a success).
  KEYS[1] webhook: webhook hash    KEYS[2] status: webhook status hash    KEYS[3] log: update log
  ARGV[1] count: entries read at most    ARGV[2] mode: "job" or "retry"
  ARGV[3] ticket: the job's epoch ticket (a job's)
  Returns { verdict, webhook field/value list, status field/value list, XRANGE rows, ticket }
  where the verdict is "open", "none" (no webhook), "stale" (retry: the timer no longer holds the
  bot; job: the ticket's epoch is not the open one) or, for a job, the timer's `retry_at` (the bot
  is the timer's); the ticket is the open epoch's ("" for a run that finds nothing pending).
]]
--!include drain-epoch.lua
local webhook = redis.call("HGETALL", KEYS[1])
if #webhook == 0 then return { "none", webhook, {}, {}, "" } end
local generation, epoch = drain_fields(webhook)
local status = redis.call("HGETALL", KEYS[2])
local held, at = nil, nil
for i = 1, #status, 2 do
  if status[i] == "retry_at" then held, at = status[i + 1], i + 1 end
end
local ticket = drain_ticket(generation, epoch)
if ARGV[2] == "job" then
  if held then return { held, webhook, {}, {}, "" } end
  if ticket ~= ARGV[3] then return { "stale", webhook, {}, {}, "" } end
else
  if not held then return { "stale", webhook, {}, {}, "" } end
  redis.call("HSET", KEYS[2], "retry_at", "run")
  status[at] = "run"
  -- A bot the timer holds has its epoch open; one that lost it (an older record) opens one now.
  if not ticket and generation and redis.call("XLEN", KEYS[3]) > 0 then ticket = drain_begin(KEYS[1], generation, epoch) end
end
return { "open", webhook, status, redis.call("XRANGE", KEYS[3], "-", "+", "COUNT", ARGV[1]), ticket or "" }
