--[[
  answerCallbackQuery for a press made through the platform API: keeps the bot's answer in the
  press's slot (only while the press lives) and publishes the press's id on the bot's callback
  answer channel in the same step, which wakes the waiting press on any replica.
  KEYS[1] answer: the press's answer slot (a string with TTL)
  ARGV[1] json: the answer {text, show_alert, url}    ARGV[2] lifetime: the slot's TTL, ms
  ARGV[3] answered: the bot's callback answer channel  ARGV[4] announce: the message naming this press
  Returns 1 when the press was live (its answer kept), else 0.
]]
if not redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2], "XX") then return 0 end
redis.call("SPUBLISH", ARGV[3], ARGV[4])
return 1
