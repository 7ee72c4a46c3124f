--[[
  refundStarPayment, validated and done in one step: the charge is marked refunded, the ledger
  gets the outgoing StarTransaction, the balance shrinks by the same amount and the
  refunded_payment message is appended to the bot's log (update-log.lua); a payer with finite
  Stars gets them back. Concurrent refunds of one charge refund it once. Dates are the bot's clock.
  KEYS[1..5] log: the log's keys    KEYS[6] users: users hash          KEYS[7] charges: charges hash
  KEYS[8] ledger: ledger list        KEYS[9] balance: balance           KEYS[10] messageSeq: message_id counters hash
  KEYS[11] messages: messages hash (the chat's history gets the service message too)
  KEYS[12] userStars: users' Stars hash    KEYS[13] clock: the bot's clock offset (s)
  KEYS[14] invoices: invoices hash (see history.lua)
  ARGV[1..3] log: the log's arguments      ARGV[4..6] kind: kind, opt-in, lifetime (ms) of message
  ARGV[7] chargeId: charge id              ARGV[8] userId: user id
  ARGV[9] message: the refunded_payment Message    ARGV[10] transaction: the StarTransaction
  (templates of payment-json.ts, filled in by fill.lua)
  A refund is a "refund" entry of the bot's activity log (KEYS[5]).
  Returns { "user_not_found" }, { "not_found" }, { "already_refunded" } or { "refunded", drain ticket (log_close's, 0 for none) }.
]]
--!include update-log.lua
--!include fill.lua
if redis.call("HEXISTS", KEYS[6], ARGV[8]) == 0 then return { "user_not_found" } end
local raw = redis.call("HGET", KEYS[7], ARGV[7])
if not raw then return { "not_found" } end
local c = cjson.decode(raw)
-- Ids are kept as strings in the charge JSON: Lua numbers would lose digits past 2^53.
if c.user_id ~= ARGV[8] then return { "not_found" } end
if c.status ~= "paid" then return { "already_refunded" } end
if not c.from_json then
  -- A charge recorded before its message parts were stored with it.
  c.from_json, c.chat_json, c.queue = cjson.encode(c.user), cjson.encode(c.chat), "c" .. c.chat_id
  -- Written member by member: cjson.encode of a table has no key order.
  local payload = cjson.encode(c.payload)
  c.partner = '{"transaction_type":"invoice_payment","type":"user","user":' .. c.from_json .. ',"invoice_payload":' .. payload .. "}"
  c.refunded_payment = '{"currency":"XTR","total_amount":' .. string.format("%d", tonumber(c.amount)) .. ',"invoice_payload":' .. payload ..
    ',"telegram_payment_charge_id":' .. cjson.encode(c.id) .. "}"
end

local now = now_ms()
local date = math.floor(now / 1000) + tonumber(redis.call("GET", KEYS[13]) or "0")
c.status = "refunded"
c.refunded_at = date
redis.call("HSET", KEYS[7], ARGV[7], cjson.encode(c))
local values = {
  charge_id = cjson.encode(c.id), amount = c.amount, date = date, partner = c.partner, from = c.from_json,
  chat = c.chat_json, refunded_payment = c.refunded_payment,
}
redis.call("RPUSH", KEYS[8], fill(ARGV[10], values))
redis.call("DECRBY", KEYS[9], c.amount)
if redis.call("HEXISTS", KEYS[12], ARGV[8]) == 1 then redis.call("HINCRBY", KEYS[12], ARGV[8], c.amount) end
values.message_id = redis.call("HINCRBY", KEYS[10], c.chat_id, 1)
local message_id, message = values.message_id, fill(ARGV[9], values)
history_record(KEYS[10], KEYS[11], c.chat_id, message_id, message, KEYS[14])
local log = log_open({ KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5] }, ARGV[1], ARGV[2], ARGV[3])
log_append(log, ARGV[4], ARGV[5], c.queue, now + tonumber(ARGV[6]), message)
log_activity(log, "refund", activity_json({
  { "telegram_payment_charge_id", cjson.encode(c.id) }, { "user_id", ARGV[8] }, { "amount", string.format("%d", tonumber(c.amount)) },
  { "invoice_payload", cjson.encode(c.payload or "") },
}))
return { "refunded", log_close(log) }
