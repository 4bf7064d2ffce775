-- The turn's bookkeeping that is rules, not engine: loading the tower at
-- setup, revealing and paying the bids, carrying out a planned action (or
-- voiding it), and the final ranking (RULES.md, setup and action round).

local game, note = game, note

-- Setup: throw each player's preload cubes and the peasants into the empty
-- tower; what lands goes back to the supplies.
shogun.handler("preload", function()
  local pre = RULES.tower.preload
  local spec = { peasants = math.min(pre.peasants, game.peasant_supply()) }
  for s = 1, game.seats() do
    local k = math.min(pre.cubes_per_player, game.supply(s))
    if k > 0 then spec[#spec + 1] = { seat = s, n = k } end
  end
  local tray = game.throw(spec)
  for s = 1, game.seats() do
    if (tray[s] or 0) > 0 then game.tray_to_supply(s, tray[s]) end
  end
  game.tray_peasants_to_supply()
  note("the tower is loaded; what landed goes back to the supplies")
end)

-- Step 5: each bid is revealed and paid (a war-chest bid costs its value, a
-- province card nothing). Bids rank highest first; a province card ranks
-- at RULES.bidding.province_bid_rank, no card last. Equal bids: the daimyo
-- cards are shuffled to rank them.
shogun.handler("reveal_bids", function()
  local keyed, said = {}, {}
  for s = 1, game.seats() do
    local kind, value = game.reveal_bid(s)
    local key
    if kind == "chest" then
      local paid = math.min(value, game.chests(s))
      game.pay(s, paid)
      key = paid
      if NARRATE then said[s] = string.format("%s %d", seat_name(s), value) end
    elseif kind == "province" then
      key = RULES.bidding.province_bid_rank
      if NARRATE then said[s] = string.format("%s the province card %s", seat_name(s), pname(value)) end
    else
      key = -1
      if NARRATE then said[s] = string.format("%s no card", seat_name(s)) end
    end
    keyed[s] = { key = key, seat = s }
  end
  -- Shuffle (the daimyo cards), then a stable sort by bid.
  for i = #keyed, 2, -1 do
    local j = game.random(i)
    keyed[i], keyed[j] = keyed[j], keyed[i]
  end
  for i = 2, #keyed do
    local item, j = keyed[i], i - 1
    while j >= 1 and keyed[j].key < item.key do
      keyed[j + 1] = keyed[j]
      j = j - 1
    end
    keyed[j + 1] = item
  end
  local order, names = {}, {}
  for i, k in ipairs(keyed) do
    order[i] = k.seat
    if NARRATE then names[i] = seat_name(k.seat) end
  end
  game.set_choosing_order(order)
  if NARRATE then
    note("bids: %s", table.concat(said, ", "))
    note("choosing order: %s", table.concat(names, ", "))
  end
end)

-- Step 6: a planned action on a province card the player no longer holds
-- is void; otherwise the action card's handler carries it out.
-- Each action card's handler name, and the host and prelude functions
-- this calls for every action, looked up once while the pack loads (reads
-- through sealed tables go through their metatables).
local action_handlers = {}
for a, card in ipairs(CARDS.actions) do action_handlers[a] = card.handler end
local owner_of, action_fn = game.owner, shogun.action_fn
shogun.handler("perform_action", function(seat, p, a)
  if owner_of(p) ~= seat then return end
  action_fn(action_handlers[a])(seat, p, a)
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
