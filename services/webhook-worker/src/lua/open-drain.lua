--[[
  A drain's start in one round trip: the bot's webhook, its delivery status and the first entries
  of its log (nothing more when there is no webhook).
  KEYS[1] webhook: webhook hash    KEYS[2] status: webhook status hash    KEYS[3] log: update log
  ARGV[1] count: entries read at most
  Returns { webhook field/value list, status field/value list, XRANGE rows }.
]]
local webhook = redis.call("HGETALL", KEYS[1])
if #webhook == 0 then return { webhook, {}, {} } end
return { webhook, redis.call("HGETALL", KEYS[2]), redis.call("XRANGE", KEYS[3], "-", "+", "COUNT", ARGV[1]) }
