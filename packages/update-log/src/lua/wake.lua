--[[
  The messages of a bot's wake shard channel, as Lua writes them; `channels.wake` in packages/shared/src/channels.ts
  is the same codec for TypeScript (it reads them all and writes the webhook one): change the two
  together. A line `--!include wake.lua` brings these in.
    wake_grew(channel, bot_id, first_id, updates)
                                             "<bot id>": the bot's log grew (a waiting poll reads,
                                             a running drain reads); with the updates appended
                                             (their JSONs, ids from first_id on):
                                             "<bot id> updates <first id> <count> [<u1>,<u2>...]",
                                             which a waiting poll answers with, no read
    wake_conflict(channel, bot_id, poll_id)  "<bot id> conflict <poll id>": a newer poll took over,
                                             that poll answers 409
  Bot ids and poll ids never contain spaces.
]]
local function wake_grew(channel, bot_id, first_id, updates)
  if updates and #updates > 0 then
    redis.call("SPUBLISH", channel,
      bot_id .. " updates " .. first_id .. " " .. #updates .. " [" .. table.concat(updates, ",") .. "]")
  else
    redis.call("SPUBLISH", channel, bot_id)
  end
end

local function wake_conflict(channel, bot_id, poll_id)
  redis.call("SPUBLISH", channel, bot_id .. " conflict " .. poll_id)
end
