--[[
  A drain that waits for a retry hands the bot to the retry timer: `retry_at` in its status says
  when (the caller then adds the bot to the timer's set), unless the webhook the drain sent to is
  no longer the bot's (the new one's drain runs at once instead). A drain job that is slow on a
  crowded shard hands its running drain over with "run": the timer runs it on from then.
  KEYS[1] webhook: webhook hash    KEYS[2] status: webhook status hash
  ARGV[1] generation: the drain's webhook generation
  ARGV[2] retryAt: when the retry is due (ms), or "run" (the drain runs on in the timer's slots)
  Returns 1 when parked, 0 when the webhook changed.
]]
if redis.call("HGET", KEYS[1], "generation") ~= ARGV[1] then return 0 end
redis.call("HSET", KEYS[2], "retry_at", ARGV[2])
return 1
