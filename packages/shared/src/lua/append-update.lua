--[[
  Appends one update to a bot's log, assigning the next update_id atomically.
  KEYS[1] update log stream        KEYS[2] update_id counter
  KEYS[3] allowed_updates set      KEYS[4] webhook hash
  ARGV[1] kind                     ARGV[2] "1" when the kind is opt-in
  ARGV[3] queue key                ARGV[4] expiry, Unix ms
  ARGV[5] payload JSON (the kind's object)
  ARGV[6] pending cap              ARGV[7] wake channel      ARGV[8] bot id
  Returns { update_id, "" , webhook } on success, { 0, reason, 0 } when dropped.
]]
if redis.call("EXISTS", KEYS[3]) == 1 then
  if redis.call("SISMEMBER", KEYS[3], ARGV[1]) == 0 then return { 0, "not_allowed", 0 } end
elseif ARGV[2] == "1" then
  return { 0, "not_allowed", 0 }
end
if redis.call("XLEN", KEYS[1]) >= tonumber(ARGV[6]) then return { 0, "too_many_pending", 0 } end
local id = redis.call("INCR", KEYS[2])
local json = '{"update_id":' .. id .. ',"' .. ARGV[1] .. '":' .. ARGV[5] .. '}'
redis.call("XADD", KEYS[1], id .. "-0", "k", ARGV[1], "q", ARGV[3], "x", ARGV[4], "u", json)
local webhook = redis.call("EXISTS", KEYS[4])
if webhook == 0 then redis.call("PUBLISH", ARGV[7], ARGV[8]) end
return { id, "", webhook }
