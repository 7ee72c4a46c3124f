--[[
  Completes Bot API JSON built in TypeScript (lua/template.ts), for the scripts that include it
  (`--!include fill.lua`): every mark `\1name\1` becomes values[name], JSON text (a number, a
  stored object, an encoded string); a mark with no value stays. TypeScript builds the shapes,
  Lua only fills in what the step alone knows.
    fill(template, values) -> the JSON
]]
local function fill(template, values)
  return (string.gsub(template, "\1([%w_]+)\1", values))
end
