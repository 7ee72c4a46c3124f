--[[
  A delivered update whose 2xx answer was ignored (too long, or no room for it): the last error
  says why the answer's method did not run, only while the webhook it was sent to is still the
  bot's. The update was delivered: no retry state, and `last_ok` stays as it is.
  KEYS[1] webhook: webhook hash    KEYS[2] status: webhook status hash
  ARGV[1] generation: the drain's webhook generation
  ARGV[2] dateField: last_error_date field    ARGV[3] date: Unix s
  ARGV[4] messageField: last_error_message field    ARGV[5] message: why the answer was ignored
  Returns 1 when recorded, 0 when the webhook changed.
]]
if redis.call("HGET", KEYS[1], "generation") ~= ARGV[1] then return 0 end
redis.call("HSET", KEYS[2], ARGV[2], ARGV[3], ARGV[4], ARGV[5])
return 1
