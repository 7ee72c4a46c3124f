--[[
  Appends updates to a bot's log in one step: checks the bot exists, registers the chats and users
  met in the payloads, then for each update filters by allowed_updates, enforces the pending cap
  and assigns the next update_id. Wakes waiting polls once (when no webhook is set).
  KEYS[1] bot hash                 KEYS[2] update log stream       KEYS[3] update_id counter
  KEYS[4] allowed_updates set      KEYS[5] webhook hash            KEYS[6] chats hash
  KEYS[7] chat usernames hash      KEYS[8] users hash
  ARGV[1] pending cap              ARGV[2] wake shard channel          ARGV[3] bot id
  ARGV[4] C, number of chats       ARGV[5] U, number of users
  then C triples: chat id, lower-cased username ("" for none), Chat JSON
  then U pairs: user id, User JSON
  then per update 5 values: kind, "1" when opt-in, queue key, expiry (Unix ms), payload JSON
  Returns { -1 } when the bot does not exist; otherwise { webhook (0/1), r1, r2, ... } where each
  r is the update_id assigned, or the reason the update was dropped ("not_allowed", "too_many_pending").
]]
if redis.call("EXISTS", KEYS[1]) == 0 then return { -1 } end
local cap = tonumber(ARGV[1])
local chats = tonumber(ARGV[4])
local users = tonumber(ARGV[5])
local i = 6
for _ = 1, chats do
  -- Rewriting an unchanged chat would only grow the append-only file.
  if redis.call("HGET", KEYS[6], ARGV[i]) ~= ARGV[i + 2] then
    redis.call("HSET", KEYS[6], ARGV[i], ARGV[i + 2])
    if ARGV[i + 1] ~= "" then redis.call("HSET", KEYS[7], ARGV[i + 1], ARGV[i]) end
  end
  i = i + 3
end
for _ = 1, users do
  if redis.call("HGET", KEYS[8], ARGV[i]) ~= ARGV[i + 1] then redis.call("HSET", KEYS[8], ARGV[i], ARGV[i + 1]) end
  i = i + 2
end

local restricted = redis.call("EXISTS", KEYS[4]) == 1
local webhook = redis.call("EXISTS", KEYS[5])
local pending = redis.call("XLEN", KEYS[2])
local out = { webhook }
local appended = false
while i <= #ARGV do
  local kind = ARGV[i]
  local allowed
  if restricted then allowed = redis.call("SISMEMBER", KEYS[4], kind) == 1 else allowed = ARGV[i + 1] ~= "1" end
  if not allowed then
    out[#out + 1] = "not_allowed"
  elseif pending >= cap then
    out[#out + 1] = "too_many_pending"
  else
    local id = redis.call("INCR", KEYS[3])
    local json = '{"update_id":' .. id .. ',"' .. kind .. '":' .. ARGV[i + 4] .. '}'
    redis.call("XADD", KEYS[2], id .. "-0", "k", kind, "q", ARGV[i + 2], "x", ARGV[i + 3], "u", json)
    pending = pending + 1
    appended = true
    out[#out + 1] = id
  end
  i = i + 5
end
if appended and webhook == 0 then redis.call("SPUBLISH", ARGV[2], ARGV[3]) end
return out
