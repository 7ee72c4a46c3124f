--[[
  Sends an invoice message (or, with no invoice record, a text message): resolves the target chat, checks the replied message, assigns the
  chat's next message_id and stores the message and its invoice, all in one step so message ids
  stay gapless and unique under concurrent sends; the chat keeps its newest messages (history.lua).
  The Message is built in TypeScript (bot-message.ts); this step fills in its marks (fill.lua): message_id, chat (the stored Chat), sender (the `from`
  or `sender_chat` member, by chat type) and reply (the `reply_to_message` member, answer only).
  KEYS[1] chats: chats hash (id -> Chat JSON)      KEYS[2] chatUsernames: chat usernames hash (lower name -> id)
  KEYS[3] messageSeq: message_id counters hash     KEYS[4] messages: messages hash (<chat>:<msg> -> Message JSON,
    <chat>:<msg>:reply -> the id of the message it replies to)
  KEYS[5] invoices: invoices hash (<chat>:<msg> -> invoice record JSON)
  ARGV[1] chatId: chat_id as given (id or @username)   ARGV[2] message: the Message template
  ARGV[3] from: the sender member in a private chat    ARGV[4] senderChat: the sender member in a channel
  ARGV[5] reply: the reply_to_message member (its mark: replied)
  ARGV[6] record: invoice record JSON, "" for none     ARGV[7] replyTo: replied message_id, "" for none
  ARGV[8] replyChat: replied message's chat_id, "" for the target chat
  ARGV[9] withoutReply: "1" to send anyway when the replied message is missing
  ARGV[10] wakeChannel: chat wake channel      ARGV[11] botId: bot id (published as `<bot id>:<chat id>`)
  Returns { "ok", chat id, Message JSON } or { "chat_not_found" | "chat_type" | "reply_not_found" }.
]]
--!include fill.lua
--!include history.lua
local function resolve(given)
  local id = given
  if string.sub(given, 1, 1) == "@" then
    id = redis.call("HGET", KEYS[2], string.lower(string.sub(given, 2)))
    if not id then return nil, nil end
  end
  local chat = redis.call("HGET", KEYS[1], id)
  if not chat then return nil, nil end
  return id, chat
end

local chat_id, chat = resolve(ARGV[1])
if not chat_id then return { "chat_not_found" } end
local chat_type = cjson.decode(chat).type
if chat_type ~= "private" and chat_type ~= "channel" then return { "chat_type" } end

local replied = false
if ARGV[7] ~= "" then
  local reply_chat = chat_id
  if ARGV[8] ~= "" then reply_chat = resolve(ARGV[8]) end
  if reply_chat == chat_id then replied = redis.call("HGET", KEYS[4], chat_id .. ":" .. ARGV[7]) end
  if not replied and ARGV[9] ~= "1" then return { "reply_not_found" } end
end

local message_id = redis.call("HINCRBY", KEYS[3], chat_id, 1)
local values = { message_id = message_id, chat = chat, reply = "" }
values.sender = fill(chat_type == "private" and ARGV[3] or ARGV[4], values)
local field = chat_id .. ":" .. message_id
-- Stored without reply_to_message: a replied-to message never carries its own reply. The
-- replied message's id is kept beside it (`<field>:reply`), for the copies that show it (a
-- callback query's message).
local message = fill(ARGV[2], values)
redis.call("HSET", KEYS[4], field, message)
if replied then redis.call("HSET", KEYS[4], field .. ":reply", ARGV[7]) end
if ARGV[6] ~= "" then redis.call("HSET", KEYS[5], field, ARGV[6]) end
history_trim(KEYS[4], chat_id, message_id, KEYS[5])
redis.call("SPUBLISH", ARGV[10], ARGV[11] .. ":" .. chat_id)
if replied then
  values.reply = fill(ARGV[5], { replied = replied })
  message = fill(ARGV[2], values)
end
return { "ok", chat_id, message }
