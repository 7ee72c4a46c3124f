--[[
  Gives a bot a new token in one step, only if the bot exists (a deletion cannot land between the
  check and the write and leave a record holding only a token hash).
  KEYS[1] bot: bot hash    ARGV[1] tokenHash: SHA-256 of the new token
  Returns 1 when rotated, 0 when there is no such bot.
]]
if redis.call("EXISTS", KEYS[1]) == 0 then return 0 end
redis.call("HSET", KEYS[1], "token_hash", ARGV[1])
return 1
