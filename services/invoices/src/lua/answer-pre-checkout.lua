--[[
  Answers a pre-checkout query once. On ok, in one step: the charge is recorded, the ledger gets
  the incoming StarTransaction, the balance grows by the same amount, the payer's Stars (when
  finite) shrink by it, a subscription link's payment starts the subscription, and the
  successful_payment message is appended to the bot's log (update-log.lua), so the money and the
  update that tells the bot exist together or not at all. A payer short of Stars, or already
  subscribed from the link, fails the payment instead. A second answer, on any replica, finds the
  query no longer pending and changes nothing. An answer that changed the query publishes it on
  the bot's pre-checkout answer channel in the same step, which wakes the waiting payment.
  Dates are the bot's clock (real time + KEYS[16]); the answer deadline and update lifetimes are real time.
  KEYS[1..5] log: the log's keys    KEYS[6] query: pre-checkout query hash    KEYS[7] charges: charges hash
  KEYS[8] ledger: ledger list        KEYS[9] balance: balance        KEYS[10] messageSeq: message_id counters hash
  KEYS[11] messages: messages hash (the chat's history gets the service message too, and the
    invoice message's `<chat>:<message id>:paid` count grows)
  KEYS[12] userStars: users' Stars hash    KEYS[13] subscriptions: subscriptions hash
  KEYS[14] subscribers: subscribers hash   KEYS[15] due: subscriptions due zset
  KEYS[16] clock: the bot's clock offset (s)    KEYS[17] invoices: invoices hash (see history.lua)
  ARGV[1..3] log: the log's arguments      ARGV[4..6] kind: kind, opt-in, lifetime (ms) of message
  ARGV[7] ok: "1" ok, "0" refused          ARGV[8] errorMessage: error_message (when refused)
  ARGV[9] message: the successful_payment Message    ARGV[10] payment: successful_payment, one-time
  ARGV[11] subscribed: successful_payment, a subscription's first    ARGV[12] transaction: the StarTransaction
  (templates of payment-json.ts, filled in by fill.lua)
  ARGV[13] answered: the bot's pre-checkout answer channel    ARGV[14] announce: the message naming this query
  (published with how it ended: "<announce> paid <charge id>", "… declined <error message>" or
  "… failed <error message>", so the waiting payment needs no read)
  Every outcome but "invalid" is a "payment" entry of the bot's activity log (KEYS[5]).
  Returns { "invalid" }, { "declined" }, { "failed", error message } or { "paid", drain ticket (log_close's, 0 for none), charge id }.
]]
--!include update-log.lua
--!include fill.lua
local q = redis.call("HMGET", KEYS[6], "state", "deadline", "amount", "chat_id", "charge_id", "charge", "partner", "user",
  "chat", "paid_head", "queue", "user_id", "period", "link", "txn", "paid", "payload", "invoice_message")
if q[1] ~= "pending" then return { "invalid" } end
local now = now_ms()
if now > tonumber(q[2]) then return { "invalid" } end

local function payment_entry(status, extra)
  local members = { { "status", '"' .. status .. '"' }, { "user_id", q[12] }, { "amount", q[3] } }
  for _, m in ipairs(extra) do members[#members + 1] = m end
  activity_add(KEYS[5], "payment", activity_json(members))
end

if ARGV[7] ~= "1" then
  redis.call("HSET", KEYS[6], "state", "declined", "error_message", ARGV[8])
  payment_entry("declined", { { "error_message", cjson.encode(ARGV[8]) } })
  redis.call("SPUBLISH", ARGV[13], ARGV[14] .. " declined " .. ARGV[8])
  return { "declined" }
end
-- A query recorded before its subscription parts were stored with it: its ledger entry and payment as stored.
if not q[10] then
  local c = cjson.decode(q[6])
  q[7], q[12] = c.partner, c.user_id
  q[10] = string.sub(q[16], 1, string.find(q[16], ',"telegram_payment_charge_id"', 1, true) - 1)
end
local amount = tonumber(q[3])
local stars = redis.call("HGET", KEYS[12], q[12])
local period = tonumber(q[13] or "0")
local subscriber = (q[14] or "") .. ":" .. q[12]
local why
if stars and tonumber(stars) < amount then why = "the user does not have enough Stars" end
if period > 0 and redis.call("HEXISTS", KEYS[14], subscriber) == 1 then why = "the user already has a subscription from this link" end
if why then
  redis.call("HSET", KEYS[6], "state", "failed", "error_message", why)
  payment_entry("failed", { { "error_message", cjson.encode(why) } })
  redis.call("SPUBLISH", ARGV[13], ARGV[14] .. " failed " .. why)
  return { "failed", why }
end

local date = math.floor(now / 1000) + tonumber(redis.call("GET", KEYS[16]) or "0")
-- The charge, from the query's parts (a query recorded before they were stored has it whole).
local charge
if q[6] then
  charge = cjson.decode(q[6])
else
  charge = {
    id = q[5], status = "paid", user_id = q[12], chat_id = q[4], amount = q[3], payload = q[17], queue = q[11],
    from_json = q[8], chat_json = q[9], partner = q[7],
    refunded_payment = q[10] .. ',"telegram_payment_charge_id":' .. cjson.encode(q[5]) .. "}",
  }
end
charge.date = date
local values = { head = q[10], charge_id = cjson.encode(q[5]), amount = q[3], date = date, partner = q[7], from = q[8], chat = q[9] }
local payment = ARGV[10]
if period > 0 then
  local expires = date + period
  values.expires, payment = expires, ARGV[11]
  charge.subscription = q[5]
  redis.call("HSET", KEYS[13], q[5], cjson.encode({
    id = q[5], link = q[14], user_id = q[12], chat_id = q[4], amount = amount, period = period, expires = expires,
    state = "active", from_json = q[8], chat_json = q[9], queue = q[11], partner = q[7], paid_head = q[10],
  }))
  redis.call("HSET", KEYS[14], subscriber, q[5])
  redis.call("ZADD", KEYS[15], expires, q[5])
end
values.successful_payment = fill(payment, values)

redis.call("HSET", KEYS[6], "state", "paid")
redis.call("HSET", KEYS[7], q[5], cjson.encode(charge))
redis.call("RPUSH", KEYS[8], fill(ARGV[12], values))
redis.call("INCRBY", KEYS[9], q[3])
if stars then redis.call("HINCRBY", KEYS[12], q[12], -amount) end
values.message_id = redis.call("HINCRBY", KEYS[10], q[4], 1)
local message_id, message = values.message_id, fill(ARGV[9], values)
history_record(KEYS[10], KEYS[11], q[4], message_id, message, KEYS[17])
local log = log_open({ KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5] }, ARGV[1], ARGV[2], ARGV[3])
log_append(log, ARGV[4], ARGV[5], q[11], now + tonumber(ARGV[6]), message)
local ticket = log_close(log)
-- The invoice message's payments, which the platform's history shows (`paid`), while the history
-- still holds the message (history.lua drops the count with it).
if q[18] and q[18] ~= "" and redis.call("HEXISTS", KEYS[11], q[18]) == 1 then
  redis.call("HINCRBY", KEYS[11], q[18] .. ":paid", 1)
end
payment_entry("paid", {
  { "telegram_payment_charge_id", cjson.encode(q[5]) }, { "invoice_payload", cjson.encode(charge.payload or "") },
  { "subscription", period > 0 and "true" or nil },
})
redis.call("SPUBLISH", ARGV[13], ARGV[14] .. " paid " .. q[5])
return { "paid", ticket, q[5] }
