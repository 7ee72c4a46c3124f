--[[
  Counting a scripted fault off, in take-fault.lua and in the delivery steps (replay.lua). A line
  `--!include faults.lua` brings in:
    fault_count(bot hash, faults hash, fault id, rule (decoded), n): the rule has n fewer `times`;
      a used-up one is removed, and the bot's `faults` flag with the last one
]]
local function fault_count(bot_key, faults_key, id, rule, n)
  rule.times = rule.times - n
  if rule.times <= 0 then
    redis.call("HDEL", faults_key, id)
    local left = redis.call("HLEN", faults_key)
    if left == 0 then redis.call("HDEL", bot_key, "faults") else redis.call("HSET", bot_key, "faults", left) end
  else
    redis.call("HSET", faults_key, id, cjson.encode(rule))
  end
end
