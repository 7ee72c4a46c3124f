--[[
  Ends a waiting poll's claim on its bot (its client left, or the process is stopping), unless
  another poll took it over meanwhile.
  KEYS[1] owner: poll owner string
  ARGV[1] pollId: poll id
  Returns 1 when released, 0 when another poll owns the bot (or nobody does).
]]
if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end
return 0
