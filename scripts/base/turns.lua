-- The turn's bookkeeping that is rules, not engine: loading the tower at
-- setup, revealing and paying the bids, carrying out a planned action (or
-- voiding it), and the final ranking (docs/rules.md, "Setting up" and "An
-- action round").
-- Uses from lib.lua: seat_name, pname.

-- Setup: throw each player's preload cubes and the peasants into the empty
-- tower; what lands goes back to the supplies.
shogun.handler("preload", function()
  local pre = RULES.tower.preload
  local spec = { peasants = math.min(pre.peasants, game.peasant_supply()), setup = true }
  for s = 1, game.seats() do
    local k = math.min(pre.cubes_per_player, game.supply(s))
    if k > 0 then spec[#spec + 1] = { seat = s, n = k } end
  end
  local tray = game.throw(spec)
  for s = 1, game.seats() do
    if (tray[s] or 0) > 0 then game.tray_to_supply(s, tray[s]) end
  end
  game.tray_peasants_to_supply()
  game.note("the tower is loaded; what landed goes back to the supplies")
end)

-- Step 5: each bid is revealed and paid (a war-chest bid costs its value, a
-- province card nothing). Bids rank highest first; a province card ranks
-- at RULES.bidding.province_bid_rank, no card last. Equal bids: the daimyo
-- cards are shuffled to rank them.
local province_bid_rank = RULES.bidding.province_bid_rank
shogun.handler("reveal_bids", function()
  -- Each seat's bid key and the seats, in two lists kept in step.
  local keys, order, said = {}, {}, {}
  local n = game.seats()
  for s = 1, n do
    local kind, value = game.reveal_bid(s)
    local key
    if kind == "chest" then
      local paid = math.min(value, game.chests(s))
      game.pay(s, paid)
      key = paid
      if NARRATE then said[s] = string.format("%s %d", seat_name(s), value) end
    elseif kind == "province" then
      key = province_bid_rank
      if NARRATE then said[s] = string.format("%s the province card %s", seat_name(s), pname(value)) end
    else
      key = -1
      if NARRATE then said[s] = string.format("%s no card", seat_name(s)) end
    end
    keys[s], order[s] = key, s
  end
  -- Shuffle (the daimyo cards), then a stable sort by bid.
  for i = n, 2, -1 do
    local j = game.random(i)
    keys[i], keys[j] = keys[j], keys[i]
    order[i], order[j] = order[j], order[i]
  end
  for i = 2, n do
    local key, seat, j = keys[i], order[i], i - 1
    while j >= 1 and keys[j] < key do
      keys[j + 1], order[j + 1] = keys[j], order[j]
      j = j - 1
    end
    keys[j + 1], order[j + 1] = key, seat
  end
  game.set_choosing_order(order)
  if NARRATE then
    local names = {}
    for i, s in ipairs(order) do names[i] = seat_name(s) end
    game.note("bids: %s", table.concat(said, ", "))
    game.note("choosing order: %s", table.concat(names, ", "))
  end
end)

-- Step 6: a planned action on a province card the player no longer holds
-- is void; otherwise the action card's handler carries it out. `holder`
-- is who holds the card now (nil: nobody).
local action_handlers = {}
for a, card in ipairs(CARDS.actions) do action_handlers[a] = card.handler end
shogun.handler("perform_action", function(seat, p, a, holder)
  if holder ~= seat then return end
  shogun.actions[action_handlers[a]](seat, p, a)
end)

-- A province lost in battle (docs/rules.md, "An action round", 5): its card goes
-- to the new owner (or the deck) at once, even from the player board, so
-- the action planned there is lost: the card leaves the former owner's
-- plan. Called by the battles with the former owner, the province and the
-- new owner (nil: nobody); a variant may replace it.
shogun.handler("province_lost", function(seat, p)
  local _, lost = game.void_planned(seat, p)
  if lost > 0 then
    game.tally("skipped.province_lost", seat, lost)
    if NARRATE then game.note("%S's %s planned in %P %s lost with the province (skipped)", seat, lost == 1 and "action" or lost .. " actions", p, lost == 1 and "is" or "are") end
  end
end)

-- The end: most points first, then most war chests; still equal, equal rank.
shogun.handler("standings", function(players)
  local ranks = {}
  for s, me in ipairs(players) do
    local rank = 1
    for _, other in ipairs(players) do
      if other.points > me.points or (other.points == me.points and other.chests > me.chests) then rank = rank + 1 end
    end
    ranks[s] = rank
  end
  return ranks
end)
