--[[
  Replaces a stored message only if it is still the version the caller read: an edit decided in
  the service, applied as one compare-and-set step.
  KEYS[1] messages: messages hash (<chat>:<msg> -> Message JSON)
  ARGV[1] field: <chat>:<msg>   ARGV[2] read: the JSON read   ARGV[3] next: the new JSON
  Returns 1 when applied, 0 when the message changed or is gone meanwhile.
]]
if redis.call("HGET", KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call("HSET", KEYS[1], ARGV[1], ARGV[3])
return 1
