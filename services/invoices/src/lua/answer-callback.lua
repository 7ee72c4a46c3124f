--[[
  answerCallbackQuery. A press made through the platform API: keeps the bot's answer in the
  press's slot (only while the press lives) and publishes the press's id on the bot's callback
  answer channel in the same step, which wakes the waiting press on any replica. A callback query
  pushed as an update has no slot: it is live while its id is in the open set and unexpired.
  KEYS[1] answer: the press's answer slot (a string with TTL)
  KEYS[2] openQueries: the bot's open callback queries (zset: id -> expiry, Unix ms)
  ARGV[1] json: the answer {text, show_alert, url}    ARGV[2] lifetime: the slot's TTL, ms
  ARGV[3] answered: the bot's callback answer channel  ARGV[4] announce: the message naming this press
  ARGV[5] id: the query id
  Returns 1 when a press was live (its answer kept), 2 when a pushed query is live, else 0.
]]
if redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2], "XX") then
  redis.call("SPUBLISH", ARGV[3], ARGV[4])
  return 1
end
local expiry = redis.call("ZSCORE", KEYS[2], ARGV[5])
-- Redis's clock, as the append that opened it prunes by.
local t = redis.call("TIME")
if expiry and tonumber(expiry) > tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) then return 2 end
return 0
