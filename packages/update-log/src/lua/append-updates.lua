--[[
  Appends updates to a bot's log in one step: checks the bot exists, registers the chats and users
  met in the payloads, then for each update records a message in its chat's history when asked
  (whether or not the bot takes the update: the user did send it) and appends it (update-log.lua:
  allowed_updates, the pending cap, the next update_id, the wake). With an idempotency key, a key
  already used answers the first call's reply instead, changing nothing; a new one keeps this
  call's reply under the key.
  KEYS[1..5] log: the log's keys (update-log.lua)   KEYS[6] bot: bot hash    KEYS[7] chats: chats hash
  KEYS[8] chatUsernames: chat usernames hash      KEYS[9] users: users hash
  KEYS[10] messageSeq: message_id counters hash
  KEYS[11] messages: messages hash (<chat>:<message id> -> Message JSON)
  KEYS[12] openQueries: the bot's open callback queries (zset: id -> expiry, Unix ms)
  KEYS[13] idempotency: the idempotency key's hash (any key of the bot's slot when there is none)
  KEYS[14] invoices: invoices hash (a message the history drops takes its invoice record along)
  KEYS[15] status: webhook status hash
  ARGV[1..3] log: the log's arguments (pending cap, wake channel, bot id)
  ARGV[4] chats: C, number of chats       ARGV[5] users: U, number of users
  ARGV[6] keyLifetime: how long the idempotency key is kept (ms), 0 without one
  ARGV[7] fingerprint: the request's fingerprint (with a key)
  ARGV[8..] records: C triples: chat id, lower-cased username ("" for none), Chat JSON,
  then U pairs: user id, User JSON,
  then per update 8 values: kind, "1" when opt-in, queue key, expiry (Unix ms), payload JSON,
  history chat id ("" for none), message id ("" to take the chat's next one), and the callback
  query id to open ("" for none): kept until the expiry, so answerCallbackQuery finds it
  Returns { -1 } when the bot does not exist; otherwise { ticket, first, r1, r2, ... } where the
  ticket is log_close's (a drain epoch this step opened, else 0), `first` is 0 or, when this step
  opened the epoch of a bot the retry timer does not hold and the whole log is small, what a drain
  job carries so that it starts without reading (open-drain.lua's reply: the webhook and status
  hashes and the log's rows; then the step's time, Unix ms), and each r is the update_id
  assigned, or the reason the update was dropped ("not_allowed", "too_many_pending"), followed,
  for an update recorded in a history, by its message id; or, for a key already used, { -2, 1
  when the fingerprint matches else 0, the first reply as JSON ({ ticket, r1, r2, ... }) }.
]]

--!include update-log.lua

-- A drain job carries the log when it holds at most this many entries of at most this many bytes.
local CARRY_ROWS = 16
local CARRY_BYTES = 16384

local function drain_first(ticket)
  if ticket == 0 or redis.call("HEXISTS", KEYS[15], "retry_at") == 1 then return 0 end
  if redis.call("XLEN", KEYS[1]) > CARRY_ROWS then return 0 end
  local rows = redis.call("XRANGE", KEYS[1], "-", "+")
  local bytes = 0
  for _, row in ipairs(rows) do
    for _, v in ipairs(row[2]) do bytes = bytes + #v end
  end
  if bytes > CARRY_BYTES then return 0 end
  return { redis.call("HGETALL", KEYS[4]), redis.call("HGETALL", KEYS[15]), rows, now_ms() }
end

if redis.call("EXISTS", KEYS[6]) == 0 then return { -1 } end
local keyed = ARGV[6] ~= "0"
if keyed then
  local first = redis.call("HMGET", KEYS[13], "fingerprint", "reply")
  if first[1] then return { -2, first[1] == ARGV[7] and 1 or 0, first[2] } end
end
local chats = tonumber(ARGV[4])
local users = tonumber(ARGV[5])
local i = 8
for _ = 1, chats do
  -- Rewriting an unchanged chat would only grow the append-only file.
  if redis.call("HGET", KEYS[7], ARGV[i]) ~= ARGV[i + 2] then
    redis.call("HSET", KEYS[7], ARGV[i], ARGV[i + 2])
    if ARGV[i + 1] ~= "" then redis.call("HSET", KEYS[8], ARGV[i + 1], ARGV[i]) end
  end
  i = i + 3
end
for _ = 1, users do
  if redis.call("HGET", KEYS[9], ARGV[i]) ~= ARGV[i + 1] then redis.call("HSET", KEYS[9], ARGV[i], ARGV[i + 1]) end
  i = i + 2
end

local log = log_open({ KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5] }, ARGV[1], ARGV[2], ARGV[3])
local results = {}
while i <= #ARGV do
  local payload = ARGV[i + 4]
  local message_id = nil
  if ARGV[i + 5] ~= "" then payload, message_id = history_record(KEYS[10], KEYS[11], ARGV[i + 5], ARGV[i + 6], payload, KEYS[14]) end
  local r = log_append(log, ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], payload)
  results[#results + 1] = r
  if message_id then results[#results + 1] = tonumber(message_id) end
  if ARGV[i + 7] ~= "" and type(r) == "number" then
    redis.call("ZREMRANGEBYSCORE", KEYS[12], "-inf", "(" .. now_ms())
    redis.call("ZADD", KEYS[12], ARGV[i + 3], ARGV[i + 7])
  end
  i = i + 8
end
local ticket = log_close(log)
local out = { ticket }
for _, r in ipairs(results) do out[#out + 1] = r end
if keyed then
  -- Stored after the step's first write: a call Redis refuses for memory keeps no key either.
  redis.call("HSET", KEYS[13], "fingerprint", ARGV[7], "reply", cjson.encode(out))
  redis.call("PEXPIRE", KEYS[13], ARGV[6])
end
table.insert(out, 2, drain_first(ticket))
return out
