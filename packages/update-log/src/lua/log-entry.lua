--[[
  The fields of one update log entry (stream id `<update_id>-0`), the one place Lua spells them;
  the TypeScript side is `ENTRY_FIELDS` in update-log.ts (a test reads back what this writes).
  A line `--!include log-entry.lua` is replaced by this file when a script is loaded.
    entry_write(stream, update_id, kind, queue key, expiry (Unix ms), Update JSON, replay): XADD;
      `replay` true marks a replay (replay.lua), which getUpdates deletes once it answered with it
    entry_read(flat field/value array of an XRANGE row) -> { kind, queue, expiry (number), update, replay }
]]
local ENTRY = { kind = "k", queue = "q", expiry = "x", update = "u", replay = "r" }

local function entry_write(stream, id, kind, queue, expiry, json, replay)
  if replay then
    redis.call("XADD", stream, id .. "-0", ENTRY.kind, kind, ENTRY.queue, queue, ENTRY.expiry, expiry, ENTRY.update, json,
      ENTRY.replay, "1")
  else
    redis.call("XADD", stream, id .. "-0", ENTRY.kind, kind, ENTRY.queue, queue, ENTRY.expiry, expiry, ENTRY.update, json)
  end
end

local function entry_read(f)
  local fields = {}
  for i = 1, #f, 2 do fields[f[i]] = f[i + 1] end
  return {
    kind = fields[ENTRY.kind], queue = fields[ENTRY.queue],
    expiry = tonumber(fields[ENTRY.expiry]), update = fields[ENTRY.update], replay = fields[ENTRY.replay] == "1",
  }
end
