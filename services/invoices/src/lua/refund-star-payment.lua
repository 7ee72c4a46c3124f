--[[
  Refunds a charge once: marks it refunded, appends the outgoing StarTransaction and takes the
  same amount off the balance in one step, so concurrent refunds of one charge refund it once.
  KEYS[1] charges hash    KEYS[2] ledger list    KEYS[3] balance    KEYS[4] message_id counters hash
  ARGV[1] charge id       ARGV[2] user id        ARGV[3] the refunded charge JSON
  ARGV[4] the refund StarTransaction JSON
  Returns { "not_found" }, { "already_refunded" } or { "refunded", message_id }.
]]
local raw = redis.call("HGET", KEYS[1], ARGV[1])
if not raw then return { "not_found" } end
local charge = cjson.decode(raw)
-- Ids are kept as strings in the charge JSON: Lua numbers would lose digits past 2^53.
if charge.user_id ~= ARGV[2] then return { "not_found" } end
if charge.status ~= "paid" then return { "already_refunded" } end
redis.call("HSET", KEYS[1], ARGV[1], ARGV[3])
redis.call("RPUSH", KEYS[2], ARGV[4])
redis.call("DECRBY", KEYS[3], charge.amount)
local message_id = redis.call("HINCRBY", KEYS[4], charge.chat_id, 1)
return { "refunded", message_id }
