-- Collect first, then the revolt. Where there is no unrest nothing differs
-- from the base rules, so the replacements apply only where there is
-- (`when`): the base actions run elsewhere, and the lab counts this rule
-- only where it comes into play.

local function collect_first(seat, p, a, field, hook, one, what)
  local unrest = game.unrest(p)
  local amount = modify(hook, MAP.provinces[p][field], seat, p, a)
  if field == "tax" then game.gain(seat, amount) else game.add_rice(seat, amount) end
  game.tally(field == "tax" and "collected.taxes" or "collected.rice", seat, amount)
  game.note("%S collects %n in %P before the peasants rise", seat, amount, one .. "/" .. what, p)
  if unrest > 0 and not revolt(seat, p, unrest, "collecting " .. what) then return end
  game.add_unrest(p, RULES.params.unrest_per_collection)
end

local function in_unrest(_, p)
  return game.unrest(p) > 0
end

shogun.replace("action", "collect_taxes", function(seat, p, a)
  collect_first(seat, p, a, "tax", "tax_yield", "war chest", "war chests")
end, in_unrest)

shogun.replace("action", "collect_rice", function(seat, p, a)
  collect_first(seat, p, a, "rice", "rice_yield", "rice", "rice")
end, in_unrest)
