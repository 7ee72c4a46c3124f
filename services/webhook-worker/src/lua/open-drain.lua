--[[
  A drain's start in one round trip: the bot's webhook, its delivery status and the first entries
  of its log, unless the retry timer holds the bot (its status has `retry_at`). A drain job
  ("job") leaves such a bot alone; the timer's own run ("retry") takes it, marking it "run", and
  finds nothing to take when the bot left the timer meanwhile (a setWebhook, a success).
  KEYS[1] webhook: webhook hash    KEYS[2] status: webhook status hash    KEYS[3] log: update log
  ARGV[1] count: entries read at most    ARGV[2] mode: "job" or "retry"
  Returns { verdict, webhook field/value list, status field/value list, XRANGE rows } where the
  verdict is "open", "none" (no webhook), "stale" (retry: the timer no longer holds the bot) or,
  for a job, the timer's `retry_at` (the bot is the timer's).
]]
local webhook = redis.call("HGETALL", KEYS[1])
if #webhook == 0 then return { "none", webhook, {}, {} } end
local held = redis.call("HGET", KEYS[2], "retry_at")
if ARGV[2] == "job" and held then return { held, webhook, {}, {} } end
if ARGV[2] == "retry" then
  if not held then return { "stale", webhook, {}, {} } end
  redis.call("HSET", KEYS[2], "retry_at", "run")
end
return { "open", webhook, redis.call("HGETALL", KEYS[2]), redis.call("XRANGE", KEYS[3], "-", "+", "COUNT", ARGV[1]) }
