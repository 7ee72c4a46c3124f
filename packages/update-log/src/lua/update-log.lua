--[[
  The update log's append, the one piece of Lua every script that tells a bot something includes
  (a line `--!include update-log.lua` is replaced by this file when the script is loaded), so money
  or a record and the update announcing it are written in one step.
    local log = log_open({ log stream, update_id counter, allowed_updates set, webhook hash,
                           activity stream }, cap, wake shard channel, bot id)
    log_append(log, kind, opt_in ("1"/"0"), queue key, expiry (Unix ms), payload JSON)
      -> the update_id assigned, or the reason it was dropped: "not_allowed" (allowed_updates
         filter, applied at creation as in the official server) or "too_many_pending" (the cap);
         an appended update is an "update" entry of the bot's activity log (activity.lua)
    log_activity(log, kind, data JSON): an entry of the bot's activity log (a payment, say)
    history_record(message_id counters hash, messages hash, chat id, message id, payload JSON,
      invoices hash) -> payload, message id: records a message in its chat's history (history.lua
         keeps its newest messages, and drops the invoice record of one it drops); an empty message id takes the chat's next one and puts it in front of
         the payload's keys
    log_close(log) -> a drain ticket when something was appended for a webhook and this step
      opened the bot's drain epoch (drain-epoch.lua: the caller's appendThenDeliver schedules the
      epoch's drain job, and the workers' reconciler does if the caller dies first), else 0 (no
      webhook, or the open epoch's drain takes it); when something was appended, publishes once on the
      bot's wake channel, which wakes a waiting poll or the running drain of the bot. For a bot
      without a webhook the message carries the updates appended when they come to at most
      WAKE_CARRY_BYTES of JSON: a waiting poll answers with them without reading the log.
  The entry's fields are log-entry.lua's (included here).
]]
--!include wake.lua
--!include drain-epoch.lua
--!include log-entry.lua
--!include activity.lua
--!include history.lua

local WAKE_CARRY_BYTES = 65536

local function log_open(k, cap, wake_channel, bot_id)
  local log = {
    k = k, cap = tonumber(cap), channel = wake_channel, bot = bot_id, appended = false,
    carried_bytes = 0, first_id = nil,
    restricted = redis.call("EXISTS", k[3]) == 1,
    webhook = redis.call("EXISTS", k[4]),
    pending = redis.call("XLEN", k[1]),
  }
  -- No poll waits on a bot with a webhook: its wake message carries nothing.
  if log.webhook == 0 then log.carried = {} end
  return log
end

local function log_append(log, kind, opt_in, queue, expiry, payload)
  local allowed
  if log.restricted then allowed = redis.call("SISMEMBER", log.k[3], kind) == 1 else allowed = opt_in ~= "1" end
  if not allowed then return "not_allowed" end
  if log.pending >= log.cap then return "too_many_pending" end
  local id = redis.call("INCR", log.k[2])
  -- JsonUpdate's bytes (WebhookActor.h at 01a3679, line 230): a newline after the id's comma.
  local json = '{"update_id":' .. id .. ',\n"' .. kind .. '":' .. payload .. '}'
  entry_write(log.k[1], id, kind, queue, expiry, json)
  activity_add(log.k[5], "update", '{"update_id":' .. id .. ',"type":"' .. kind .. '","update":' .. json .. '}')
  log.first_id = log.first_id or id
  if log.carried then
    log.carried_bytes = log.carried_bytes + #json
    if log.carried_bytes > WAKE_CARRY_BYTES then log.carried = nil else log.carried[#log.carried + 1] = json end
  end
  log.pending = log.pending + 1
  log.appended = true
  return id
end

local function log_activity(log, kind, data)
  return activity_add(log.k[5], kind, data)
end

local function history_record(seq_key, messages_key, chat_id, message_id, payload, invoices_key)
  if message_id == "" then
    message_id = redis.call("HINCRBY", seq_key, chat_id, 1)
    payload = '{"message_id":' .. message_id .. ',' .. string.sub(payload, 2)
  end
  redis.call("HSET", messages_key, chat_id .. ":" .. message_id, payload)
  history_trim(messages_key, chat_id, message_id, invoices_key)
  return payload, message_id
end

local function log_close(log)
  if not log.appended then return 0 end
  wake_grew(log.channel, log.bot, log.first_id, log.carried)
  if log.webhook == 0 then return 0 end
  return drain_open(log.k[4])
end

-- The server's clock in ms, so every replica stamps and expires alike.
local function now_ms()
  local t = redis.call("TIME")
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
