--[[
  Delivers an update the bot already confirmed once more, as Telegram may after a timeout: the
  same update_id and body, read back from the bot's activity log (its "update" entry), appended in
  a new slot (replay.lua), then the wake, as for any append.
  KEYS[1] stream: update log stream    KEYS[2] counter: update_id counter
  KEYS[3] activity: activity stream     KEYS[4] webhook: webhook hash    KEYS[5] bot: bot hash
  ARGV[1] updateId: the update_id      ARGV[2] expiry: the replay's expiry (Unix ms)
  ARGV[3] wakeChannel: the bot's wake shard channel   ARGV[4] botId: the bot id
  Returns { "bot_not_found" }, { "pending" } (not confirmed yet), { "not_found" } (not in the
  activity log any more, or never) or { "replayed", slot, drain ticket (drain_open's: 0 when none
  is wanted) }.
]]
--!include replay.lua
--!include wake.lua
--!include drain-epoch.lua
if redis.call("EXISTS", KEYS[5]) == 0 then return { "bot_not_found" } end
local id = ARGV[1]
if #redis.call("XRANGE", KEYS[1], id .. "-0", id .. "-0") > 0 then return { "pending" } end
local head = '{"update_id":' .. id .. ',"type":"'
for _, row in ipairs(redis.call("XREVRANGE", KEYS[3], "+", "-")) do
  local f = row[2] -- k, kind, t, time, d, data
  if f[2] == "update" and string.sub(f[6], 1, #head) == head then
    local kind = string.match(f[6], '^([%w_]+)","update":', #head + 1)
    local update = string.sub(f[6], #head + #kind + 12, -2)
    local slot = replay_append(KEYS[1], KEYS[2], KEYS[3],
      { kind = kind, queue = "replay", expiry = ARGV[2], update = update }, "platform")
    wake_grew(ARGV[3], ARGV[4])
    return { "replayed", slot, drain_open(KEYS[4]) }
  end
end
return { "not_found" }
