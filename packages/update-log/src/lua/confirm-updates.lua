--[[
  Confirms (deletes) updates of a bot's log that a webhook took (a 2xx) or that were given up
  (expired), and says so in the bot's activity log in the same step. A duplicate-delivery fault
  makes what a webhook took come again (replay.lua), and wakes the bot's drain for it.
  KEYS[1] stream: update log stream        KEYS[2] activity: activity stream
  KEYS[3] counter: update_id counter        KEYS[4] bot: bot hash     KEYS[5] faults: faults hash
  KEYS[6] webhook: webhook hash
  ARGV[1] attempt: the "attempt" entry's data JSON ("" for none: nothing was sent)
  ARGV[2] kind: "confirm" (taken) or "drop" (given up)   ARGV[3] data: that entry's data JSON
  ARGV[4] wakeChannel: the bot's wake shard channel      ARGV[5] botId: the bot id
  ARGV[6] ticket: the drain's epoch ticket (drain-epoch.lua; "" for a drain that has none)
  ARGV[7..] ids: the update ids (log slots)
  The updates are confirmed only while the webhook is still the ticket's (a replaced or removed
  webhook's updates stay pending), and the step closes the ticket's epoch when it leaves the log
  empty. Returns { how many updates were deleted, the epoch: "closed", "more" (updates are
  pending), "stale" (the ticket's epoch is not the open one) or "changed" (the webhook changed:
  nothing deleted) }; the confirm or drop entry is written only when some were deleted, and
  nothing is written for a bot deleted meanwhile (its activity log would come back).
]]
--!include replay.lua
--!include wake.lua
--!include drain-epoch.lua
if redis.call("EXISTS", KEYS[4]) == 0 then return { 0, "changed" } end
local ticket = ARGV[6]
local generation, epoch = drain_state(KEYS[6])
if ARGV[1] ~= "" then activity_add(KEYS[2], "attempt", ARGV[1]) end
if ticket ~= "" and generation ~= string.match(ticket, "^(.*)_%d+$") then return { 0, "changed" } end
local ids = {}
for i = 7, #ARGV do ids[#ids + 1] = ARGV[i] .. "-0" end
local again = {}
if ARGV[2] == "confirm" and redis.call("HEXISTS", KEYS[4], "faults") == 1 then
  local found = {}
  for _, id in ipairs(ids) do
    local row = redis.call("XRANGE", KEYS[1], id, id)[1]
    if row then found[#found + 1] = entry_read(row[2]) end
  end
  for j = 1, duplicates_take(KEYS[4], KEYS[5], #found) do again[j] = found[j] end
end
local deleted = redis.call("XDEL", KEYS[1], unpack(ids))
if deleted > 0 then activity_add(KEYS[2], ARGV[2], ARGV[3]) end
for _, e in ipairs(again) do replay_append(KEYS[1], KEYS[3], KEYS[2], e, "duplicate") end
if #again > 0 then wake_grew(ARGV[4], ARGV[5]) end
return { deleted, ticket == "" and "more" or drain_close(KEYS[6], KEYS[1], ticket, generation, epoch) }
