--[[
  Adds a scripted fault for a bot's next calls and flags the bot hash, so the gateway's token
  check (which reads the bot hash anyway) knows when to look for faults at all.
  KEYS[1] bot: bot hash   KEYS[2] faults: faults hash (id -> rule JSON)   KEYS[3] faultSeq: fault id counter
  ARGV[1] rule: rule JSON without its id (an object with at least one key)
  ARGV[2] max: faults a bot may hold at once
  Returns the new fault id, -1 when the bot does not exist, or -2 when it holds max faults already.
]]
if redis.call("EXISTS", KEYS[1]) == 0 then return -1 end
if redis.call("HLEN", KEYS[2]) >= tonumber(ARGV[2]) then return -2 end
local id = redis.call("INCR", KEYS[3])
redis.call("HSET", KEYS[2], id, '{"id":' .. id .. ',' .. string.sub(ARGV[1], 2))
redis.call("HSET", KEYS[1], "faults", redis.call("HLEN", KEYS[2]))
return id
