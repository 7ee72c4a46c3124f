--[[
  Appends entries to a bot's request log and keeps only the newest entries. Only for a bot that
  still exists, so a call racing the bot's deletion leaves nothing behind.
  KEYS[1] bot: bot hash   KEYS[2] log: request log list   KEYS[3] activity: activity stream
  ARGV[1] kept: entries kept   ARGV[2..] entries: entry JSONs, oldest first (at most `kept`)
]]
--!include request-log.lua
return request_log_write(KEYS[1], KEYS[2], ARGV[1], { unpack(ARGV, 2) }, KEYS[3])
