--[[
  deleteWebhook (and setWebhook with an empty url) in one step: removes the webhook and its
  delivery status (a retry run's mark stays, see keys.webhookStatus), drops pending updates when asked (otherwise they stay for getUpdates), and when
  a webhook was removed announces it on the bot's wake channel (a drain running for it re-reads
  the webhook at once and hands the updates over; waiting polls ignore the message).
  With no webhook to remove and nothing to drop it is the reference's "already deleted" branch,
  which still saves allowed_updates (Client.cpp at 01a3679, line 15762).
  KEYS[1] webhook: webhook hash    KEYS[2] status: webhook status hash    KEYS[3] log: update log
  KEYS[4] allowedUpdates: the bot's allowed_updates set
  ARGV[1] drop: "1" to drop pending updates    ARGV[2] wakeChannel: wake shard channel
  ARGV[3] message: the message announcing it   ARGV[4] allowedMode: keep, default or set
  ARGV[5..] kinds: the allowed kinds (mode set)
  Returns 1 when a webhook was removed, else 0.
]]
--!include allowed-updates.lua
local removed = redis.call("DEL", KEYS[1])
if removed == 0 and ARGV[1] ~= "1" then allowed_store(KEYS[4], ARGV[4], { unpack(ARGV, 5) }) end
-- A retry run under way keeps its mark, so no drain job starts beside it; it ends on the change.
local run = redis.call("HGET", KEYS[2], "retry_at") == "run"
redis.call("DEL", KEYS[2])
if run then redis.call("HSET", KEYS[2], "retry_at", "run") end
if ARGV[1] == "1" then redis.call("DEL", KEYS[3]) end
if removed == 1 then redis.call("SPUBLISH", ARGV[2], ARGV[3]) end
return removed
