--[[
  setWebhook (with a URL) in one step, checks included, in the official server's order: at most
  once a second per bot (the limit key), then "already set" when nothing but allowed_updates
  changes (allowed_updates is still stored), then the caller's verdict on the URL's address (made
  before the step: DNS is not Redis). Otherwise it drops pending updates when asked, stores
  allowed_updates, replaces the webhook (a new generation), clears the delivery status (a retry
  run's mark stays, see keys.webhookStatus), ends the
  bot's poll claim and announces the change on the bot's wake channel (a waiting poll, on any
  gateway, answers 409; a drain running for the old webhook re-reads it at once). The caller then
  makes sure a drain runs when updates are pending: the step opens the new webhook's first drain
  epoch (drain-epoch.lua) and returns its ticket.
  KEYS[1] webhook: webhook hash    KEYS[2] status: webhook status hash
  KEYS[3] allowedUpdates: allowed_updates set    KEYS[4] log: update log
  KEYS[5] pollOwner: poll owner string    KEYS[6] limit: the once-a-second limit string
  ARGV[1] drop: "1" to drop pending updates    ARGV[2] allowedMode: "keep", "default" or "set"
  ARGV[3] wakeChannel: wake shard channel    ARGV[4] message: the message announcing the change
  ARGV[5] limitMs: the limit's interval (ms)
  ARGV[6] comparable: "1" when the call may find the webhook unchanged (no certificate, no drop)
  ARGV[7] verdict: "ok", or the refusal the caller found for the URL's address
  ARGV[8] fieldValues: N, the number of webhook field/value values (url, secret_token,
    max_connections, ip_address and certificate first)
  ARGV[9..] values: those N, then the allowed kinds
  Returns { "too_often" }, { "unchanged" }, { verdict } when the address was refused, or
  { "set", the drain ticket ("" when nothing is pending) }.
]]
--!include allowed-updates.lua
--!include drain-epoch.lua
if not redis.call("SET", KEYS[6], "1", "PX", ARGV[5], "NX") then return { "too_often" } end
local n = tonumber(ARGV[8])
local kinds = { unpack(ARGV, 9 + n) }
if ARGV[6] == "1" then
  local cur = redis.call("HMGET", KEYS[1], ARGV[9], ARGV[11], ARGV[13], ARGV[15], ARGV[17])
  -- A webhook set with a certificate is never unchanged (no stored value is "0" then).
  if cur[1] == ARGV[10] and cur[2] == ARGV[12] and cur[3] == ARGV[14] and cur[4] == ARGV[16] and (cur[5] or "0") == ARGV[18] then
    allowed_store(KEYS[3], ARGV[2], kinds)
    return { "unchanged" }
  end
end
if ARGV[7] ~= "ok" then return { ARGV[7] } end
if ARGV[1] == "1" then redis.call("DEL", KEYS[4]) end
allowed_store(KEYS[3], ARGV[2], kinds)
-- A retry run under way keeps its mark, so no drain job starts beside it; it ends on the change.
local run = redis.call("HGET", KEYS[2], "retry_at") == "run"
redis.call("DEL", KEYS[1], KEYS[2], KEYS[5])
if run then redis.call("HSET", KEYS[2], "retry_at", "run") end
redis.call("HSET", KEYS[1], unpack(ARGV, 9, 8 + n))
redis.call("SPUBLISH", ARGV[3], ARGV[4])
return { "set", drain_ensure(KEYS[1], KEYS[4]) }
