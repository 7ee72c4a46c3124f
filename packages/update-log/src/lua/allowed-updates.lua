--[[
  The bot's allowed_updates setting as getUpdates and setWebhook store it (update-log.lua reads it
  when it appends). A line `--!include allowed-updates.lua` brings it in.
    allowed_store(set key, mode, kinds): mode "keep" leaves the setting, "default" restores the
      default (no set), "set" stores `kinds` (a non-empty table of kind names); a setting that is
      already so is not written again (no AOF write for a getUpdates that repeats it).
]]
local function allowed_store(key, mode, kinds)
  if mode == "keep" then return end
  if mode == "default" then
    redis.call("DEL", key)
    return
  end
  if redis.call("SCARD", key) == #kinds then
    local same = true
    for _, kind in ipairs(kinds) do
      if redis.call("SISMEMBER", key, kind) == 0 then
        same = false
        break
      end
    end
    if same then return end
  end
  redis.call("DEL", key)
  redis.call("SADD", key, unpack(kinds))
end
