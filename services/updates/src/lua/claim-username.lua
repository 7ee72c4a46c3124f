--[[
  Compare-and-set on the global username registry (`name` -> bot id, `name:at` -> when claimed):
  sets `name` to `id` ("" removes it) only while it maps to `expected` ("" meaning no entry). A
  claim of another id (`expected`, whose bot the caller found missing: a creation interrupted
  between its two steps) is taken over only once older than `lease` ms, so a creation still in
  flight keeps its claim.
  KEYS[1] usernames: bot usernames hash    ARGV[1] name: lower-cased username
  ARGV[2] id: the new owner ("" removes)    ARGV[3] expected: the current owner ("" for none)
  ARGV[4] lease: lease (ms)
  Returns 1 when done, 0 when the entry held something else (or a claim too young to take over).
]]
local current = redis.call("HGET", KEYS[1], ARGV[1]) or ""
if current ~= ARGV[3] then return 0 end
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if current ~= "" and ARGV[2] ~= "" then
  local at = tonumber(redis.call("HGET", KEYS[1], ARGV[1] .. ":at") or "0")
  if now - at < tonumber(ARGV[4]) then return 0 end
end
if ARGV[2] == "" then
  redis.call("HDEL", KEYS[1], ARGV[1], ARGV[1] .. ":at")
else
  redis.call("HSET", KEYS[1], ARGV[1], ARGV[2], ARGV[1] .. ":at", now)
end
return 1
