--[[
  Takes the oldest fault that matches a call's method (or "*"), counting one of its `times`
  (faults.lua); a used-up fault is removed, and the bot's flag with the last one. (A "delivery"
  fault is no method's: the delivery steps take it, replay.lua.)
  KEYS[1] bot: bot hash   KEYS[2] faults: faults hash (id -> rule JSON)
  ARGV[1] method: the method name as in the method table
  Returns the rule JSON as it was before this call, or false when none matches.
]]
--!include faults.lua
local rows = redis.call("HGETALL", KEYS[2])
local best_id, best
for i = 1, #rows, 2 do
  local id = tonumber(rows[i])
  local rule = cjson.decode(rows[i + 1])
  if (rule.method == ARGV[1] or rule.method == "*") and (not best_id or id < best_id) then
    best_id, best = id, rows[i + 1]
  end
end
if not best_id then
  if #rows == 0 then redis.call("HDEL", KEYS[1], "faults") end
  return false
end
fault_count(KEYS[1], KEYS[2], best_id, cjson.decode(best), 1)
return best
