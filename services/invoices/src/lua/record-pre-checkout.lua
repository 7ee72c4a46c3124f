--[[
  Starts a payment in one step: stores the pre-checkout query (everything its answer will need:
  the charge, the ledger entry, the messages), registers the payer and appends the
  pre_checkout_query update (update-log.lua). The query's answer deadline is the server's clock.
  With an idempotency key, a key already used answers with its query instead, changing nothing.
  Otherwise the refusals known before the query is emitted (the answer's step checks them again):
  a payer known to be short of Stars, a second subscription from one link.
  KEYS[1..5] log: the log's keys    KEYS[6] query: pre-checkout query hash    KEYS[7] users: users hash
  KEYS[8] idempotency: the idempotency key's hash (any key of the bot's slot when there is none)
  KEYS[9] stars: the payers' Star balances hash    KEYS[10] subscribers: the subscribers hash
  KEYS[11] bot: bot hash    KEYS[12] chats: chats hash    KEYS[13] invoices: invoice messages hash
  ARGV[1..3] log: the log's arguments    ARGV[4..6] kind: kind, opt-in, lifetime (ms) of pre_checkout_query
  ARGV[7] queue: queue key               ARGV[8] update: the PreCheckoutQuery JSON
  ARGV[9] lifetime: the query's lifetime (ms)    ARGV[10] answerTimeout: how long the bot may take to answer (ms)
  ARGV[11] userId: payer's user id       ARGV[12] user: payer's User JSON
  ARGV[13] idempotent: "1" with an idempotency key    ARGV[14] queryId: query id
  ARGV[15] fingerprint: the request's fingerprint
  ARGV[16] amount: the price in Stars    ARGV[17] subscriber: the subscribers field of a
    subscription link ("" for anything else)
  ARGV[18] chatId: for an invoice message, the chat the step reads ("" when the caller knows the
    chat and the price: an invoice link)    ARGV[19] invoiceField: the invoice message's field
  ARGV[20..] fields: field/value pairs of the query hash
  For an invoice message the step reads the bot, the chat and the invoice message, and fills the
  marks (fill.lua) of the update, the amount and the fields: amount (the price), payload (the
  invoice payload as a JSON string), payload_text (as stored) and chat (the stored Chat JSON).
  Returns { "new", drain ticket (log_close's, 0 for none), update_id or the reason it was dropped },
  { "repeat", the first query's id, 1 when the fingerprint matches else 0 },
  { "refused", "stars_not_enough" | "already_subscribed" } or
  { "missing", "bot_not_found" | "chat_not_found" | "invoice_message_not_found" }.
]]
--!include update-log.lua
--!include fill.lua
local update, amount = ARGV[8], ARGV[16]
local fields = {}
for i = 20, #ARGV do fields[#fields + 1] = ARGV[i] end
if ARGV[18] ~= "" then
  if redis.call("EXISTS", KEYS[11]) == 0 then return { "missing", "bot_not_found" } end
  local chat = redis.call("HGET", KEYS[12], ARGV[18])
  if not chat then return { "missing", "chat_not_found" } end
  local record = redis.call("HGET", KEYS[13], ARGV[19])
  if not record then return { "missing", "invoice_message_not_found" } end
  local invoice = cjson.decode(record)
  -- cjson writes "/" as "\/"; the payload is written as JSON.stringify writes it.
  local values = {
    amount = string.format("%d", invoice.total_amount),
    payload = (string.gsub(cjson.encode(invoice.payload), "\\/", "/")),
    payload_text = invoice.payload,
    chat = chat,
  }
  update, amount = fill(update, values), fill(amount, values)
  for i = 2, #fields, 2 do fields[i] = fill(fields[i], values) end
end
if ARGV[13] == "1" then
  local first = redis.call("HMGET", KEYS[8], "query", "fingerprint")
  if first[1] then return { "repeat", first[1], first[2] == ARGV[15] and 1 or 0 } end
end
local stars = redis.call("HGET", KEYS[9], ARGV[11])
if stars and tonumber(stars) < tonumber(amount) then return { "refused", "stars_not_enough" } end
if ARGV[17] ~= "" and redis.call("HEXISTS", KEYS[10], ARGV[17]) == 1 then
  return { "refused", "already_subscribed" }
end
if ARGV[13] == "1" then
  redis.call("HSET", KEYS[8], "query", ARGV[14], "fingerprint", ARGV[15])
  redis.call("PEXPIRE", KEYS[8], ARGV[9])
end
local now = now_ms()
redis.call("HSET", KEYS[6], "state", "pending", "deadline", now + tonumber(ARGV[10]), unpack(fields))
redis.call("PEXPIRE", KEYS[6], ARGV[9])
if redis.call("HGET", KEYS[7], ARGV[11]) ~= ARGV[12] then redis.call("HSET", KEYS[7], ARGV[11], ARGV[12]) end
local log = log_open({ KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5] }, ARGV[1], ARGV[2], ARGV[3])
local r = log_append(log, ARGV[4], ARGV[5], ARGV[7], now + tonumber(ARGV[6]), update)
return { "new", log_close(log), r }
