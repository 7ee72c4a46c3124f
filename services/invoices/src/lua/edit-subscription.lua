--[[
  editUserStarSubscription, validated and done in one step: a subscription that has not ended is
  cancelled (its next renewal will not happen; it expires at its expiration date) or re-enabled.
  KEYS[1] users: users hash          KEYS[2] subscriptions: subscriptions hash
  ARGV[1] chargeId: first charge id  ARGV[2] userId: user id    ARGV[3] cancel: "1" cancel, "0" re-enable
  Returns "user_not_found", "not_found", "expired" or "ok".
]]
if redis.call("HEXISTS", KEYS[1], ARGV[2]) == 0 then return "user_not_found" end
local raw = redis.call("HGET", KEYS[2], ARGV[1])
if not raw then return "not_found" end
local s = cjson.decode(raw)
if s.user_id ~= ARGV[2] then return "not_found" end
if s.state ~= "active" then return "expired" end
s.canceled = ARGV[3] == "1"
redis.call("HSET", KEYS[2], ARGV[1], cjson.encode(s))
return "ok"
