--[[
  The bound of a chat's history (keys.messages): every step that adds a message to a chat calls
  history_trim after storing it. A line `--!include history.lua` brings it in.
    history_trim(messages hash, chat id, message id, invoices hash): message ids are gap-free
      per chat, so the chat keeps the newest HISTORY_KEPT (CHAT_HISTORY_SIZE in packages/shared) by
      dropping the one HISTORY_KEPT below the new id, with its `:reply` and `:paid` fields and its
      invoice record (an invoice no longer in the history cannot be paid). It runs after the step's first write,
      so a step Redis refuses for memory has written nothing.
]]
local HISTORY_KEPT = 1000

local function history_trim(messages_key, chat_id, message_id, invoices_key)
  local old = tonumber(message_id) - HISTORY_KEPT
  if old < 1 then return end
  local field = chat_id .. ":" .. string.format("%d", old)
  redis.call("HDEL", messages_key, field, field .. ":reply", field .. ":paid")
  redis.call("HDEL", invoices_key, field)
end
