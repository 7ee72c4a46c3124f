--[[
  The retry timer's claim: up to `max` bots whose retry is due, each rescored to `claimed` (when
  this claim lapses: a worker that dies while running it leaves it to be claimed again then).
  KEYS[1] retries: the retry timer's sorted set
  ARGV[1] now: Unix ms    ARGV[2] claimed: the claim's score (Unix ms)    ARGV[3] max: bots at most
  Returns { the earliest score left ("" when none), bot ids claimed... }.
]]
local due = {}
if tonumber(ARGV[3]) > 0 then
  due = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", ARGV[1], "LIMIT", 0, ARGV[3])
  for _, bot in ipairs(due) do redis.call("ZADD", KEYS[1], ARGV[2], bot) end
end
local head = redis.call("ZRANGE", KEYS[1], 0, 0, "WITHSCORES")
local out = { head[2] or "" }
for _, bot in ipairs(due) do out[#out + 1] = bot end
return out
