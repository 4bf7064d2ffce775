-- Winter: supply and revolts, scoring, and the end of the year.
-- Uses from lib.lua: modify, count, pname; from battle.lua: revolt; from
-- the runtime: sorted_keys.

-- The supply table's rows and the shortage each starts at, and the rest
-- of the winter's rules, read once at load.
local supply_rows, supply_from = {}, {}
for i, r in ipairs(RULES.winter.supply_table) do supply_rows[i], supply_from[i] = r, r.shortage end
local supply_count, rice_per_province = #supply_rows, RULES.winter.rice_per_province
-- The row a shortage falls in: the last row whose shortage it reaches.
local function supply_row(shortage)
  for i = supply_count, 1, -1 do
    if shortage >= supply_from[i] then return supply_rows[i] end
  end
  return supply_rows[1]
end

-- Resolves the queued winter revolts in turn order; a player with several
-- chooses their order.
local function next_revolt(queue)
  while #queue > 0 do
    local entry = queue[1]
    if #entry.provinces == 0 then
      table.remove(queue, 1)
    elseif #entry.provinces == 1 then
      local p = table.remove(entry.provinces, 1)
      revolt(entry.seat, p, game.unrest(p) + entry.extra, "winter")
    else
      game.ask_province(entry.seat, "revolt_order", "which revolt is fought next?", "winter_revolt", { queue = queue }, false,
        table.unpack(entry.provinces))
      return
    end
  end
end

shogun.continuation("winter_revolt", function(seat, p, data)
  local queue = data.queue
  local entry = queue[1]
  for i, q in ipairs(entry.provinces) do
    if q == p then table.remove(entry.provinces, i) break end
  end
  revolt(seat, p, game.unrest(p) + entry.extra, "winter")
  next_revolt(queue)
end)

-- What a player lost in winter, for narration: `lost` taken from his rice,
-- `owed` what the rules asked of him, `loss` what the event card said
-- (effects in force, e.g. a house rule, may change it).
local function rice_lost(lost, owed, loss)
  local why = owed ~= loss and string.format(" (the event's %d %+d by the effects in force)", loss, owed - loss) or ""
  if owed == 0 then return "loses no rice" .. why end
  if lost == 0 then return string.format("has no rice to lose of the %d owed%s", owed, why) end
  if lost < owed then return string.format("loses all his %d rice of the %d owed%s", lost, owed, why) end
  return string.format("loses %d rice%s", lost, why)
end

shogun.handler("winter", function()
  -- The year's last remaining event sets the rice loss. With the base
  -- calendar exactly one is left; if a variant leaves more, the one turned
  -- up last counts.
  local left = { game.year_events() }
  local loss = 0
  if #left > 0 then
    local card = CARDS.events[left[#left]]
    loss = card.rice_loss
    game.note("the year's last event, #%s %s, sets the winter's rice loss at %d", card.id, card.name, loss)
  end
  local queue = {}
  for _, seat in ipairs({ game.turn_order() }) do
    local owed = modify("winter_rice_loss", loss, seat)
    local _, held, _, _, provinces = game.seat(seat)
    local rice = game.add_rice(seat, -owed)
    local need = provinces * rice_per_province
    local shortage = math.max(0, need - rice)
    local row = supply_row(shortage)
    if NARRATE then
      game.note("%S %s, has %d for %n: short %d -> %n, +%n each", seat, rice_lost(held - rice, owed, loss), rice, provinces, "province", shortage,
        row.revolts, "revolt", row.extra_peasants, "peasant")
    end
    if row.revolts > 0 then
      -- The player on his left draws that many of his province cards.
      local cards = { game.provinces_of(seat) }
      local drawn = {}
      for _ = 1, math.min(row.revolts, #cards) do
        drawn[#drawn + 1] = table.remove(cards, game.random(#cards))
      end
      if NARRATE then
        local names = {}
        for _, p in ipairs(drawn) do names[#names + 1] = pname(p) end
        game.note("revolts drawn for %S: %s", seat, table.concat(names, ", "))
      end
      queue[#queue + 1] = { seat = seat, provinces = drawn, extra = row.extra_peasants }
    end
  end
  next_revolt(queue)
end)

-- The scoring rules, read once at load: what a province and a building
-- score, and the region majorities in a fixed order of kinds (sorted) with
-- their awards (tied leaders score tie_step less).
local per_province, per_building = RULES.scoring.per_province, RULES.scoring.per_building
local majority_kinds, tie_step = sorted_keys(RULES.scoring.region_majority), RULES.scoring.tie_step
local majority_awards, kinds = {}, #majority_kinds
for i, kind in ipairs(majority_kinds) do majority_awards[i] = RULES.scoring.region_majority[kind] end

-- Each seat scores its provinces and buildings, and in each region the
-- seats with the most buildings of a kind score its award. Bots run this
-- for every position they look at (docs/bots.md), so it reads the view's
-- lists once each.
shogun.handler("score", function()
  local board = game.board()
  local held, built, by_region = board.provinces, board.buildings, board.leaders
  local seats = #held
  -- Made with room for five seats: no table grows while it is filled.
  local points, majority, lines = { 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 }, {}
  for s = 1, seats do
    local provinces, buildings = held[s], built[s]
    points[s] = provinces * per_province + buildings * per_building
    game.tally("points.provinces", s, provinces * per_province)
    game.tally("points.buildings", s, buildings * per_building)
    if NARRATE then lines[s] = { count(provinces, "province") .. ", " .. count(buildings, "building") } end
  end
  for r = 1, #by_region do
    local region = by_region[r]
    for i = 1, kinds do
      local leaders = region[majority_kinds[i]]
      local first = leaders[1]
      if first ~= nil then
        -- Tied leaders score tie_step less.
        local award = majority_awards[i]
        local k, s = 1, first
        if leaders[2] ~= nil then award = award - tie_step end
        while award > 0 and s ~= nil do
          points[s], majority[s] = points[s] + award, majority[s] + award
          if NARRATE then lines[s][#lines[s] + 1] = string.format("%s %s %d", MAP.regions[r], majority_kinds[i], award) end
          k = k + 1
          s = leaders[k]
        end
      end
    end
  end
  for s = 1, seats do
    game.tally("points.majority", s, majority[s])
    game.add_points(s, points[s])
    if NARRATE then
      game.note("%S scores %d (%s): %d points", s, points[s], table.concat(lines[s], "; "), game.points(s))
    end
  end
end)

shogun.handler("year_end", function()
  for s = 1, game.seats() do game.set_rice(s, 0) end
  for _, p in ipairs({ game.provinces_with_unrest() }) do game.remove_unrest(p) end
  game.note("rice markers go back to 0 and all unrest is removed")
end)
