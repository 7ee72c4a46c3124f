--[[
  Replays: an update the bot was given once, appended to its log again, its body unchanged (the
  same update_id), in a new slot (stream id `<slot>-0`, the update_id counter's next value, so the
  next new update's id skips one). The slot is marked: getUpdates deletes it once it answered with
  it; a webhook takes it with a 2xx, as any update. A line `--!include replay.lua` brings in:
    replay_append(stream, counter, activity, entry { kind, queue, expiry, update }, reason)
      -> the slot; a "replay" entry of the activity log names the update_id, the slot and the
      reason ("platform": asked for; "duplicate": a duplicate-delivery fault)
    duplicates_take(bot hash, faults hash, n) -> how many of the next n deliveries the bot's
      duplicate-delivery fault (method "delivery") makes reach it twice, counted off the fault
    update_id_of(Update JSON) -> its update_id
]]
--!include log-entry.lua
--!include activity.lua
--!include faults.lua

local function update_id_of(json)
  return tonumber(string.match(json, '^{"update_id":(%d+)'))
end

local function replay_append(stream, counter, activity, e, reason)
  local slot = redis.call("INCR", counter)
  entry_write(stream, slot, e.kind, e.queue, e.expiry, e.update, true)
  activity_add(activity, "replay",
    '{"update_id":' .. update_id_of(e.update) .. ',"slot":' .. slot .. ',"reason":"' .. reason .. '"}')
  return slot
end

local function duplicates_take(bot_key, faults_key, n)
  if n <= 0 or not redis.call("HGET", bot_key, "faults") then return 0 end
  local rows = redis.call("HGETALL", faults_key)
  for i = 1, #rows, 2 do
    local rule = cjson.decode(rows[i + 1])
    if rule.method == "delivery" then
      local take = math.min(n, rule.times)
      fault_count(bot_key, faults_key, rows[i], rule, take)
      return take
    end
  end
  return 0
end
