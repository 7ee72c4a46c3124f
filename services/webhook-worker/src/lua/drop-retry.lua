--[[
  Takes a bot out of the retry timer's set, only while its score is still this worker's claim: a
  bot parked again meanwhile keeps its new entry.
  KEYS[1] retries: the retry timer's sorted set
  ARGV[1] botId: bot id    ARGV[2] claimed: the claim's score
  Returns 1 when removed.
]]
if redis.call("ZSCORE", KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
return redis.call("ZREM", KEYS[1], ARGV[1])
