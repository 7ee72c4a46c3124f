--[[
  Answers a pre-checkout query once. On ok the charge is recorded, the ledger gets the incoming
  StarTransaction and the balance grows by the same amount, in one step: a second answer, on any
  replica, finds the query no longer pending and changes nothing. The caller wakes the waiting
  payment afterwards (after appending the successful_payment message).
  KEYS[1] pre-checkout query hash    KEYS[2] charges hash    KEYS[3] ledger list
  KEYS[4] balance                    KEYS[5] message_id counters hash
  ARGV[1] "1" ok, "0" refused        ARGV[2] error_message (when refused)
  Returns { "invalid" }, { "declined" } or
  { "paid", message_id, user JSON, chat JSON, invoice payload, amount, charge id }.
]]
local q = redis.call("HMGET", KEYS[1], "state", "deadline", "amount", "chat_id", "charge_id", "charge", "txn", "user", "chat", "payload")
if q[1] ~= "pending" then return { "invalid" } end
-- The server's clock, so every replica applies the same 10 s deadline.
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if now > tonumber(q[2]) then return { "invalid" } end

if ARGV[1] ~= "1" then
  redis.call("HSET", KEYS[1], "state", "declined", "error_message", ARGV[2])
  return { "declined" }
end
redis.call("HSET", KEYS[1], "state", "paid")
redis.call("HSET", KEYS[2], q[5], q[6])
redis.call("RPUSH", KEYS[3], q[7])
redis.call("INCRBY", KEYS[4], q[3])
local message_id = redis.call("HINCRBY", KEYS[5], q[4], 1)
return { "paid", message_id, q[8], q[9], q[10], q[3], q[5] }
