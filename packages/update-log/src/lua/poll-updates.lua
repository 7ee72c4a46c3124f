--[[
  getUpdates' read, one round trip: refuses while a webhook is set, stores allowed_updates when
  the call gives it (as the official server: only when not refused), confirms below the offset,
  drops expired updates, returns up to limit; when nothing is ready and the caller will wait, it
  makes the caller the bot's one waiting poll and tells the previous one (on any replica) to go.
  KEYS[1] stream: update log stream        KEYS[2] counter: update_id counter
  KEYS[3] webhook: webhook hash             KEYS[4] owner: poll owner string
  KEYS[5] allowed: allowed_updates set     KEYS[6] bot: bot hash   KEYS[7] requests: request log list
  KEYS[8] activity: activity stream (updates confirmed by the offset, expired ones, the call)
  KEYS[9] faults: faults hash (a duplicate-delivery fault replays what the offset confirms, replay.lua)
  ARGV[1] offset: 0: from the oldest; > 0: confirm every id below it; < 0: keep the newest |offset|
  ARGV[2] limit: 1..100            ARGV[3] now: Unix ms
  ARGV[4] pollId: poll id          ARGV[5] mode: wait mode, "none", "claim" (a new poll) or "rearm" (a woken one)
                                   (a woken one with updates keeps its claim: the next poll's
                                   claim replaces it, or it lapses with its TTL)
  ARGV[6] ownerTtl: owner TTL, ms  ARGV[7] wakeChannel: wake shard channel   ARGV[8] botId: bot id
  ARGV[9] allowedMode: "keep", "default" or "set"
  ARGV[10] logKept: request log entries kept   ARGV[11] logEntry: the call's request log entry,
  written when the call is answered here ("ok"); "" for none
  ARGV[12..] kinds: the allowed kinds (for "set")
  Returns { "webhook" } | { "ok", update JSON... } | { "wait" } | { "gone" } (rearm, no longer the owner).
]]
--!include wake.lua
--!include log-entry.lua
--!include allowed-updates.lua
--!include request-log.lua
--!include replay.lua

if redis.call("EXISTS", KEYS[3]) == 1 then return { "webhook" } end
allowed_store(KEYS[5], ARGV[9], { unpack(ARGV, 12) })
local offset = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local mode = ARGV[5]

-- Updates confirmed by the offset are a "confirm" entry of the activity log (activity.lua, which
-- request-log.lua brings in).
local confirmed = 0
local given = offset
if offset < 0 then
  confirmed = redis.call("XTRIM", KEYS[1], "MAXLEN", -offset)
  offset = 0
elseif offset > 0 then
  -- As the official queue: an offset more than 10 past the next id is a mistake (another server's
  -- ids, say); it confirms nothing and reads from the oldest.
  local next_id = tonumber(redis.call("GET", KEYS[2]) or "0") + 1
  if offset > next_id + 10 then
    offset = 0
  else
    -- A duplicate-delivery fault: what this offset confirms comes again (its slot is past the offset).
    local again = {}
    if offset <= next_id and redis.call("HEXISTS", KEYS[6], "faults") == 1 then
      local live = {}
      for _, row in ipairs(redis.call("XRANGE", KEYS[1], "-", "(" .. offset .. "-0", "COUNT", 100)) do
        local e = entry_read(row[2])
        if e.expiry > now and not e.replay then live[#live + 1] = e end
      end
      for j = 1, duplicates_take(KEYS[6], KEYS[9], #live) do again[j] = live[j] end
    end
    confirmed = redis.call("XTRIM", KEYS[1], "MINID", offset)
    for _, e in ipairs(again) do replay_append(KEYS[1], KEYS[2], KEYS[8], e, "duplicate") end
  end
end
if confirmed > 0 then
  activity_add(KEYS[8], "confirm", '{"by":"offset","offset":' .. given .. ',"count":' .. confirmed .. '}')
end

local out = { "ok" }
-- The official server stops a batch at about 4 MiB of JSON; at least one update always goes.
local budget = 4194304
local start = "-"
if offset > 0 then start = offset .. "-0" end
-- A replay goes alone in its batch: its update_id is older than its slot, and a client takes its
-- next offset from the last update it got, which would confirm nothing after a replay.
local alone = false
while #out <= limit and budget > 0 and not alone do
  local batch = redis.call("XRANGE", KEYS[1], start, "+", "COUNT", limit + 1 - #out)
  if #batch == 0 then break end
  for _, entry in ipairs(batch) do
    local e = entry_read(entry[2])
    if e.expiry <= now then
      redis.call("XDEL", KEYS[1], entry[1])
      activity_add(KEYS[8], "drop", '{"update_id":' .. tonumber(string.match(entry[1], "^%d+")) .. ',"reason":"expired"}')
    else
      budget = budget - 50 - #e.update
      if (budget <= 0 or e.replay) and #out > 1 then
        alone = e.replay
        break
      end
      out[#out + 1] = e.update
      if e.replay then
        -- Given once: answered, it is gone.
        redis.call("XDEL", KEYS[1], entry[1])
        alone = true
        break
      end
    end
    start = "(" .. entry[1]
  end
end

if #out > 1 or mode == "none" then
  -- A woken poll ("rearm") keeps its claim, answered: a write here would put an AOF fsync
  -- between the wake-up and the answer. The bot's next poll takes the claim over.
  if mode ~= "rearm" and redis.call("GET", KEYS[4]) == ARGV[4] then redis.call("DEL", KEYS[4]) end
  if ARGV[11] ~= "" then request_log_write(KEYS[6], KEYS[7], ARGV[10], { ARGV[11] }, KEYS[8]) end
  return out
end

if mode == "rearm" then
  if redis.call("GET", KEYS[4]) ~= ARGV[4] then return { "gone" } end
  redis.call("PEXPIRE", KEYS[4], ARGV[6])
  return { "wait" }
end

local previous = redis.call("SET", KEYS[4], ARGV[4], "PX", ARGV[6], "GET")
if previous and previous ~= ARGV[4] then
  wake_conflict(ARGV[7], ARGV[8], previous)
end
return { "wait" }
