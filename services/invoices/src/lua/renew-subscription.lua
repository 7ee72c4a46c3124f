--[[
  The bot's next subscription renewal that has come due (expiration ≤ the bot's clock), in one
  step. A subscription the bot cancelled, or whose user has fewer Stars than its price, ends
  (state "expired" or "renewal_failed"; no update: Telegram sends none). Otherwise, together: a
  new charge, the incoming StarTransaction (its TransactionPartnerUser carries
  subscription_period), the balance, the payer's Stars, the successful_payment message
  (is_recurring, not is_first_recurring, the next expiration date) in the chat's history and
  the bot's log (update-log.lua), and the next expiration. Dates are the moment the renewal came
  due; update lifetimes are real time.
  KEYS[1..5] log: the log's keys    KEYS[6] charges: charges hash      KEYS[7] ledger: ledger list
  KEYS[8] balance: balance           KEYS[9] messageSeq: message_id counters hash
  KEYS[10] messages: messages hash    KEYS[11] userStars: users' Stars hash
  KEYS[12] subscriptions: subscriptions hash    KEYS[13] due: subscriptions due zset
  KEYS[14] clock: the bot's clock offset (s)    KEYS[15] subscribers: subscribers hash
  KEYS[16] invoices: invoices hash (see history.lua)
  ARGV[1..3] log: the log's arguments      ARGV[4..6] kind: kind, opt-in, lifetime (ms) of message
  ARGV[7] chargeId: the new charge's id
  ARGV[8] message: the successful_payment Message    ARGV[9] payment: successful_payment of a renewal
  ARGV[10] transaction: the StarTransaction    ARGV[11] refunded: the new charge's refunded_payment
  (templates of payment-json.ts, filled in by fill.lua)
  A renewal, or an end, is a "renewal" entry of the bot's activity log (KEYS[5]).
  Returns { "none", the bot's clock (Unix s) }, { "ended", first charge id } or { "renewed", drain ticket (log_close's, 0 for none) }.
]]
--!include update-log.lua
--!include fill.lua
local now = now_ms()
local clock = math.floor(now / 1000) + tonumber(redis.call("GET", KEYS[14]) or "0")
local due = redis.call("ZRANGE", KEYS[13], 0, 0, "WITHSCORES")
if #due == 0 or tonumber(due[2]) > clock then return { "none", clock } end
local id, date = due[1], tonumber(due[2])
local s = cjson.decode(redis.call("HGET", KEYS[12], id))
local stars = redis.call("HGET", KEYS[11], s.user_id)

if s.canceled or (stars and tonumber(stars) < s.amount) then
  s.state = s.canceled and "expired" or "renewal_failed"
  redis.call("HSET", KEYS[12], id, cjson.encode(s))
  redis.call("ZREM", KEYS[13], id)
  local subscriber = s.link .. ":" .. s.user_id
  if redis.call("HGET", KEYS[15], subscriber) == id then redis.call("HDEL", KEYS[15], subscriber) end
  activity_add(KEYS[5], "renewal", activity_json({
    { "status", '"' .. s.state .. '"' }, { "subscription", cjson.encode(id) }, { "user_id", tostring(s.user_id) },
    { "amount", string.format("%d", s.amount) }, { "date", string.format("%d", date) },
  }))
  return { "ended", id }
end

local charge_id = ARGV[7]
local expires = date + s.period
local values = {
  head = s.paid_head, charge_id = cjson.encode(charge_id), amount = s.amount, date = date, expires = expires,
  partner = s.partner, from = s.from_json, chat = s.chat_json,
}
redis.call("HSET", KEYS[6], charge_id, cjson.encode({
  id = charge_id, status = "paid", user_id = s.user_id, chat_id = s.chat_id, amount = tostring(s.amount),
  date = date, queue = s.queue, from_json = s.from_json, chat_json = s.chat_json, partner = s.partner,
  refunded_payment = fill(ARGV[11], values), subscription = id,
}))
redis.call("RPUSH", KEYS[7], fill(ARGV[10], values))
redis.call("INCRBY", KEYS[8], s.amount)
if stars then redis.call("HINCRBY", KEYS[11], s.user_id, -s.amount) end
s.expires = expires
s.renewals = (s.renewals or 0) + 1
redis.call("HSET", KEYS[12], id, cjson.encode(s))
redis.call("ZADD", KEYS[13], expires, id)

values.successful_payment = fill(ARGV[9], values)
values.message_id = redis.call("HINCRBY", KEYS[9], s.chat_id, 1)
local message_id, message = values.message_id, fill(ARGV[8], values)
history_record(KEYS[9], KEYS[10], s.chat_id, message_id, message, KEYS[16])
local log = log_open({ KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5] }, ARGV[1], ARGV[2], ARGV[3])
log_append(log, ARGV[4], ARGV[5], s.queue, now + tonumber(ARGV[6]), message)
log_activity(log, "renewal", activity_json({
  { "status", '"renewed"' }, { "subscription", cjson.encode(id) }, { "telegram_payment_charge_id", cjson.encode(charge_id) },
  { "user_id", tostring(s.user_id) }, { "amount", string.format("%d", s.amount) }, { "date", string.format("%d", date) },
  { "expires", string.format("%d", expires) },
}))
return { "renewed", log_close(log) }
