--[[
  getUpdates' read: confirms below the offset, drops expired updates, returns up to limit.
  KEYS[1] update log stream
  ARGV[1] offset (0: from the oldest; > 0: confirm every id below it; < 0: keep the newest |offset|)
  ARGV[2] limit (1..100)           ARGV[3] now, Unix ms
  Returns the update JSON strings in id order.
]]
local offset = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if offset > 0 then
  redis.call("XTRIM", KEYS[1], "MINID", offset)
elseif offset < 0 then
  redis.call("XTRIM", KEYS[1], "MAXLEN", -offset)
end
local out = {}
local start = "-"
if offset > 0 then start = offset .. "-0" end
while #out < limit do
  local batch = redis.call("XRANGE", KEYS[1], start, "+", "COUNT", limit - #out)
  if #batch == 0 then break end
  for _, entry in ipairs(batch) do
    local f = entry[2]
    local fields = {}
    for i = 1, #f, 2 do fields[f[i]] = f[i + 1] end
    if tonumber(fields["x"]) <= now then
      redis.call("XDEL", KEYS[1], entry[1])
    else
      out[#out + 1] = fields["u"]
    end
    start = "(" .. entry[1]
  end
end
return out
