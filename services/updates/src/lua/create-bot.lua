--[[
  Creates a bot's record (token hash, username, first name) in one step, unless the id is taken.
  KEYS[1] bot: bot hash    ARGV[1..] fields: field/value pairs
  Returns 1 when created, 0 when the id already had a bot.
]]
if redis.call("EXISTS", KEYS[1]) == 1 then return 0 end
redis.call("HSET", KEYS[1], unpack(ARGV))
return 1
