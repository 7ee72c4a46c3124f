--[[
  Records a failed webhook delivery, but only while the webhook it was sent to is still the bot's:
  a request that fails just after deleteWebhook or a new setWebhook must not leave a stale error.
  KEYS[1] webhook: webhook hash             KEYS[2] status: webhook status hash
  ARGV[1] generation: the drain's webhook generation
  ARGV[2] dateField: last_error_date field    ARGV[3] date: Unix s
  ARGV[4] messageField: last_error_message field ARGV[5] message: the error
  ARGV[6] okField: last_ok field            ARGV[7] retryField: retry field of the update
  ARGV[8] retry: retry state ("" when the update was dropped: its retry field is removed)
  Returns 1 when recorded, 0 when the webhook changed.
]]
if redis.call("HGET", KEYS[1], "generation") ~= ARGV[1] then return 0 end
redis.call("HSET", KEYS[2], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], "0")
if ARGV[8] == "" then redis.call("HDEL", KEYS[2], ARGV[7]) else redis.call("HSET", KEYS[2], ARGV[7], ARGV[8]) end
return 1
