-- The ten actions. A handler gets (seat, province, action): the seat
-- carries out action card `action` (CARDS.actions[action]) in `province`,
-- in full, or skips it whole when it cannot (docs/rules.md, "The actions").
-- Uses from lib.lua: modify, skip, count; from battle.lua: attack,
-- neutral_battle, revolt.

-- The numbers of the rules an action reads, once at load (RULES is final
-- by then: variants change it before any script runs): what each action
-- card costs, builds and deploys, and what each province yields.
local unrest_per_collection, armies_left_behind = RULES.params.unrest_per_collection, RULES.params.armies_left_behind
local costs, buildings, deploys = {}, {}, {}
for a, card in ipairs(CARDS.actions) do
  costs[a] = card.cost
  local params = card.params
  if params then buildings[a], deploys[a] = params.building, params.armies end
end
local tax_of, rice_of = {}, {}
for p, prov in ipairs(MAP.provinces) do tax_of[p], rice_of[p] = prov.tax, prov.rice end

shogun.action("build", function(seat, p, a)
  local kind = buildings[a]
  local cost = modify("action_cost", costs[a], seat, p, a)
  if game.has(p, kind) then return skip(seat, p, "already has a " .. kind, "built_already") end
  if game.free_spaces(p) < 1 then return skip(seat, p, "no free building space", "no_space") end
  if game.building_supply(kind) < 1 then return skip(seat, p, "no " .. kind .. " left", "no_building_left") end
  if game.chests(seat) < cost then return skip(seat, p, "cannot pay " .. cost, "cannot_pay") end
  game.pay(seat, cost)
  game.build(p, kind)
  if NARRATE then game.note("%S builds a %s in %P for %d", seat, kind, p, cost) end
  local calm = modify("after_build", 0, seat, p, a)
  if calm > 0 and game.unrest(p) > 0 then
    local removed = game.remove_unrest(p, calm)
    if NARRATE then game.note("unrest in %P calms: %n removed", p, removed, "marker") end
  end
end)

-- Collecting in a province with unrest starts a revolt first (reading 2);
-- the yield comes only if the province is still held. Then 1 unrest marker.
-- `yields`: the yield of each province; `credit`: game.gain or
-- game.add_rice; `noun`: what is collected, for narration ("one/many");
-- `stat`: the lab's statistic of what was collected.
local function collect(seat, p, a, yields, credit, hook, noun, why, stat)
  local unrest = game.unrest(p)
  if unrest > 0 and not revolt(seat, p, unrest, why) then return end
  local amount = modify(hook, yields[p], seat, p, a)
  credit(seat, amount)
  game.tally(stat, seat, amount)
  local added = game.add_unrest(p, unrest_per_collection)
  if NARRATE then
    game.note("%S collects %n in %P%s", seat, amount, noun, p, added > 0 and string.format(" (unrest now %d)", game.unrest(p)) or "")
  end
end

shogun.action("collect_taxes", function(seat, p, a)
  collect(seat, p, a, tax_of, game.gain, "tax_yield", "war chest/war chests", "collecting war chests", "collected.taxes")
end)
shogun.action("collect_rice", function(seat, p, a)
  collect(seat, p, a, rice_of, game.add_rice, "rice_yield", "rice/rice", "collecting rice", "collected.rice")
end)

-- Deploys the action's armies; returns how many, or nil when it was
-- skipped.
local function deploy(seat, p, a)
  local n = modify("deploy_armies", deploys[a], seat, p, a)
  local cost = modify("action_cost", costs[a], seat, p, a)
  local chests, _, supply = game.seat(seat)
  if chests < cost then return skip(seat, p, "cannot pay " .. cost, "cannot_pay") end
  if supply < n then return skip(seat, p, "only " .. supply .. " cubes in supply", "no_cubes") end
  game.pay(seat, cost)
  local now = game.deploy(seat, p, n)
  if NARRATE then game.note("%S deploys %d in %P for %d (now %d)", seat, n, p, cost, now) end
  return n
end

shogun.action("deploy", deploy)

-- Asks `seat` where the armies from `from` go: `...` are the provinces
-- they may enter (none: no question, and false is returned).
local function ask_where(seat, kind, prompt, cont, data, pass, first, ...)
  if first == nil then return false end
  game.ask_province(seat, kind, prompt, cont, data, pass, first, ...)
  return true
end

-- Deploy 1, then that cube may move to an adjacent province of his own.
shogun.action("deploy_move", function(seat, p, a)
  local n = deploy(seat, p, a)
  if not n then return end
  ask_where(seat, "deploy_move", "move the new army on to a neighbouring province of yours, or pass", "deploy_move_to",
    { n = n }, true, game.own_targets(p, seat))
end)

-- `from`: the province the action deployed in (the question's context).
shogun.continuation("deploy_move_to", function(seat, to, data, from)
  if to == nil then return end
  -- The deployed cubes, and only they, may move on.
  game.move(seat, from, to, data.n)
  if NARRATE then game.note("%S moves %n from %P to %P", seat, data.n, "army/armies", from, to) end
end)

-- `n` armies go from `from` to `to`: a move into his own province, else a
-- battle.
local function move_armies(seat, n, from, to, action)
  local owner = game.owner(to)
  if owner == seat then
    game.move(seat, from, to, n)
    if NARRATE then game.note("%S moves %d from %P to %P", seat, n, from, to) end
  elseif owner == nil then
    neutral_battle(seat, from, to, n, action)
  else
    attack(seat, owner, from, to, n, action)
  end
end

-- The question needs no data: the province moved from and the action card
-- come to the continuation as the question's context.
local function ask_target(seat, p, ...)
  if not ask_where(seat, "move_target", "move or attack into", "move_target", nil, false, ...) then
    skip(seat, p, "no province it may enter", "no_target")
  end
end

shogun.action("move_attack", function(seat, p, a)
  local behind = armies_left_behind
  if game.armies(p) <= behind then return skip(seat, p, "needs more than " .. count(behind, "army", "armies") .. " to move", "too_few_armies") end
  -- His own provinces next to `p`, then the others ...
  if game.effects("can_attack", seat, a) == nil then return ask_target(seat, p, game.move_targets(p, seat)) end
  -- ... of which can_attack effects may forbid some.
  local targets = { game.own_targets(p, seat) }
  for _, q in ipairs({ game.other_targets(p, seat) }) do
    if modify("can_attack", true, seat, p, a, q) then targets[#targets + 1] = q end
  end
  ask_target(seat, p, table.unpack(targets))
end)

-- `from` and `action`: the province the armies leave and the action card
-- (the question's context).
shogun.continuation("move_target", function(seat, to, _, from, action)
  local most = game.armies(from) - armies_left_behind
  if most == 1 then return move_armies(seat, 1, from, to, action) end
  game.ask_count(seat, "move_count", "how many armies go?", "move_count", { to = to }, 1, most)
end)

shogun.continuation("move_count", function(seat, n, data, from, action)
  move_armies(seat, n, from, data.to, action)
end)
