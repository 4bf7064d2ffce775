-- A tower with a memory of one battle, written in Lua.
-- thrown, inside[1], landed: {[seat] = cubes, peasants = n}.
-- random(n) draws 1..n from this throw's own random stream.

local stick = RULES.params["lua-tower"].stick

shogun.tower("one-battle", function(thrown, inside, random)
  local landed, kept = {}, {}
  -- Everything stuck last time falls out now.
  for colour, n in pairs(inside[1]) do landed[colour] = n end
  for colour, n in pairs(thrown) do
    local stays = 0
    for _ = 1, n do
      if random(1000) <= stick * 1000 then stays = stays + 1 end
    end
    landed[colour] = (landed[colour] or 0) + n - stays
    kept[colour] = stays
  end
  return landed, { kept }
end)
