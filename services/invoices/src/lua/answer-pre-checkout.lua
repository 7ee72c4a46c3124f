--[[
  Answers a pre-checkout query once. On ok, in one step: the charge is recorded, the ledger gets
  the incoming StarTransaction, the balance grows by the same amount and the successful_payment
  message is appended to the bot's log (update-log.lua), so the money and the update that tells
  the bot exist together or not at all. A second answer, on any replica, finds the query no longer
  pending and changes nothing. The caller wakes the waiting payment afterwards.
  KEYS[1..4] the log's keys          KEYS[5] pre-checkout query hash    KEYS[6] charges hash
  KEYS[7] ledger list                KEYS[8] balance                    KEYS[9] message_id counters hash
  KEYS[10] messages hash (the chat's history gets the service message too)
  ARGV[1..3] the log's arguments     ARGV[4..6] kind, opt-in, lifetime (ms) of message
  ARGV[7] "1" ok, "0" refused        ARGV[8] error_message (when refused)
  Returns { "invalid" }, { "declined" } or { "paid", webhook (0/1) }.
]]
--!include update-log.lua
local q = redis.call("HMGET", KEYS[5], "state", "deadline", "amount", "chat_id", "charge_id", "charge", "txn", "user", "chat", "paid", "queue")
if q[1] ~= "pending" then return { "invalid" } end
local now = now_ms()
if now > tonumber(q[2]) then return { "invalid" } end

if ARGV[7] ~= "1" then
  redis.call("HSET", KEYS[5], "state", "declined", "error_message", ARGV[8])
  return { "declined" }
end
redis.call("HSET", KEYS[5], "state", "paid")
redis.call("HSET", KEYS[6], q[5], q[6])
redis.call("RPUSH", KEYS[7], q[7])
redis.call("INCRBY", KEYS[8], q[3])
local message_id = redis.call("HINCRBY", KEYS[9], q[4], 1)
local message = '{"message_id":' .. message_id .. ',"from":' .. q[8] .. ',"chat":' .. q[9] ..
  ',"date":' .. math.floor(now / 1000) .. ',"successful_payment":' .. q[10] .. '}'
history_record(KEYS[9], KEYS[10], q[4], message_id, message)
local log = log_open({ KEYS[1], KEYS[2], KEYS[3], KEYS[4] }, ARGV[1], ARGV[2], ARGV[3])
log_append(log, ARGV[4], ARGV[5], q[11], now + tonumber(ARGV[6]), message)
return { "paid", log_close(log) }
