--[[
  Records a failed webhook delivery: an "attempt" entry of the bot's activity log while the bot
  has a webhook, and the error only while the webhook it was sent to is still the bot's: a request
  that fails just after deleteWebhook or a new setWebhook must not leave a stale error.
  KEYS[1] webhook: webhook hash             KEYS[2] status: webhook status hash
  KEYS[3] activity: activity stream
  ARGV[1] attempt: the attempt entry's data JSON
  ARGV[2] generation: the drain's webhook generation
  ARGV[3] dateField: last_error_date field    ARGV[4] date: Unix s
  ARGV[5] messageField: last_error_message field ARGV[6] message: the error
  ARGV[7] okField: last_ok field            ARGV[8] retryField: retry field of the update
  ARGV[9] retry: retry state ("" when the update was dropped: its retry field is removed)
  Returns 1 when recorded, 0 when the webhook changed.
]]
--!include activity.lua
local generation = redis.call("HGET", KEYS[1], "generation")
-- No webhook any more (deleted, or its bot): nothing is written, not even the attempt, which
-- would bring a deleted bot's activity log back.
if not generation then return 0 end
activity_add(KEYS[3], "attempt", ARGV[1])
if generation ~= ARGV[2] then return 0 end
if ARGV[9] == "" then
  redis.call("HSET", KEYS[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], "0")
  redis.call("HDEL", KEYS[2], ARGV[8])
else
  redis.call("HSET", KEYS[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], "0", ARGV[8], ARGV[9])
end
return 1
