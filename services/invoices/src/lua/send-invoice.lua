--[[
  Sends an invoice message (or, with no invoice record, a text message): resolves the target chat, checks the replied message, assigns the
  chat's next message_id and stores the message and its invoice, all in one step so message ids
  stay gapless and unique under concurrent sends.
  KEYS[1] chats: chats hash (id -> Chat JSON)      KEYS[2] chatUsernames: chat usernames hash (lower name -> id)
  KEYS[3] messageSeq: message_id counters hash     KEYS[4] messages: messages hash (<chat>:<msg> -> Message JSON)
  KEYS[5] invoices: invoices hash (<chat>:<msg> -> invoice record JSON)
  ARGV[1] chatId: chat_id as given (id or @username)   ARGV[2] bot: the bot's User JSON
  ARGV[3] date: Unix s                         ARGV[4] tail: message tail JSON, from `,"invoice":` to the closing `}`
  ARGV[5] record: invoice record JSON, "" for none     ARGV[6] replyTo: replied message_id, "" for none
  ARGV[7] replyChat: replied message's chat_id, "" for the target chat
  ARGV[8] withoutReply: "1" to send anyway when the replied message is missing
  ARGV[9] wakeChannel: chat wake channel       ARGV[10] botId: bot id (published as `<bot id>:<chat id>`)
  Returns { "ok", chat id, Message JSON } or { "chat_not_found" | "chat_type" | "reply_not_found" }.
]]
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
if ARGV[6] ~= "" then
  local reply_chat = chat_id
  if ARGV[7] ~= "" then reply_chat = resolve(ARGV[7]) end
  if reply_chat == chat_id then replied = redis.call("HGET", KEYS[4], chat_id .. ":" .. ARGV[6]) end
  if not replied and ARGV[8] ~= "1" then return { "reply_not_found" } end
end

local message_id = redis.call("HINCRBY", KEYS[3], chat_id, 1)
local sender
if chat_type == "private" then sender = '"from":' .. ARGV[2] else sender = '"sender_chat":' .. chat end
local head = '{"message_id":' .. message_id .. ',' .. sender .. ',"chat":' .. chat .. ',"date":' .. ARGV[3]
local field = chat_id .. ":" .. message_id
-- Stored without reply_to_message: a replied-to message never carries its own reply.
redis.call("HSET", KEYS[4], field, head .. ARGV[4])
if ARGV[5] ~= "" then redis.call("HSET", KEYS[5], field, ARGV[5]) end
redis.call("SPUBLISH", ARGV[9], ARGV[10] .. ":" .. chat_id)
if replied then return { "ok", chat_id, head .. ',"reply_to_message":' .. replied .. ARGV[4] } end
return { "ok", chat_id, head .. ARGV[4] }
