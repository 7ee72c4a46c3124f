--[[
  The waiting payment's last word: a query still pending when the wait ends becomes expired;
  one answered in the meantime keeps its answer (the caller gets that answer instead).
  KEYS[1] query: pre-checkout query hash
  Returns { state, charge id, error_message } ("" for missing fields); state "missing" when gone.
]]
local q = redis.call("HMGET", KEYS[1], "state", "charge_id", "error_message")
if not q[1] then return { "missing", "", "" } end
if q[1] == "pending" then
  redis.call("HSET", KEYS[1], "state", "expired")
  return { "expired", "", "" }
end
return { q[1], q[2] or "", q[3] or "" }
