-- Collect first, then the revolt.

local function collect_first(seat, p, a, field, hook, one, what)
  local unrest = game.unrest(p)
  local amount = modify(hook, MAP.provinces[p][field], { seat = seat, province = p, action = a })
  if field == "tax" then game.gain(seat, amount) else game.add_rice(seat, amount) end
  note("%s collects %s in %s before the peasants rise", seat_name(seat), count(amount, one, what), pname(p))
  if unrest > 0 and not revolt(seat, p, unrest, "collecting " .. what) then return end
  game.add_unrest(p, RULES.params.unrest_per_collection)
end

shogun.replace("action", "collect_taxes", function(seat, p, a)
  collect_first(seat, p, a, "tax", "tax_yield", "war chest", "war chests")
end)

shogun.replace("action", "collect_rice", function(seat, p, a)
  collect_first(seat, p, a, "rice", "rice_yield", "rice", "rice")
end)
