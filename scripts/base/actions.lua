-- The ten actions. A handler gets (seat, province, action) and performs the
-- action there in full, or skips it whole when it cannot (RULES.md).

local note, modify = note, modify
-- Numbers of the rules read on every action, once at load (RULES is final
-- by then: variants change it before any script runs).
local unrest_per_collection, armies_left_behind = RULES.params.unrest_per_collection, RULES.params.armies_left_behind
-- Host functions called on every action, kept in file-level locals from
-- before `game` was a plain table (docs/lua-api.md: `game.pay(...)` where
-- it is used reads as well; this file moves to that form next).
local unrest_in, armies_in, supply_of, pay, own_targets, other_targets, chests_of, owner_of, gain, add_unrest, add_rice, effects_on =
  game.unrest, game.armies, game.supply, game.pay, game.own_targets, game.other_targets, game.chests, game.owner, game.gain, game.add_unrest, game.add_rice, game.effects
local has, free_spaces, building_supply, build, remove_unrest, deploy_to, move, ask_province, ask_count, move_targets =
  game.has, game.free_spaces, game.building_supply, game.build, game.remove_unrest, game.deploy, game.move, game.ask_province,
  game.ask_count, game.move_targets
local tally = game.tally
local format, unpack = string.format, table.unpack
-- What each action card costs, builds and deploys, and what each province
-- yields, read once at load: each step into CARDS or MAP is a read
-- through a sealed table.
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
  local cost = modify_at("action_cost", costs[a], seat, p, a)
  if has(p, kind) then return skip(seat, p, "already has a " .. kind, "built_already") end
  if free_spaces(p) < 1 then return skip(seat, p, "no free building space", "no_space") end
  if building_supply(kind) < 1 then return skip(seat, p, "no " .. kind .. " left", "no_building_left") end
  if chests_of(seat) < cost then return skip(seat, p, "cannot pay " .. cost, "cannot_pay") end
  pay(seat, cost)
  build(p, kind)
  if NARRATE then note("%s builds a %s in %s for %d", seat_name(seat), kind, pname(p), cost) end
  local calm = modify_at("after_build", 0, seat, p, a)
  if calm > 0 and unrest_in(p) > 0 then
    local removed = remove_unrest(p, calm)
    if NARRATE then note("unrest in %s calms: %s removed", pname(p), count(removed, "marker")) end
  end
end)

-- Collecting in a province with unrest starts a revolt first (reading 2);
-- the yield comes only if the province is still held. Then 1 unrest marker.
-- `yields`: the yield of each province; `credit`: gain or add_rice;
-- `stat`: the lab's statistic of what was collected.
local function collect(seat, p, a, yields, credit, hook, one, many, why, stat)
  local unrest = unrest_in(p)
  if unrest > 0 and not revolt(seat, p, unrest, why) then return end
  local amount = modify_at(hook, yields[p], seat, p, a)
  credit(seat, amount)
  tally(stat, seat, amount)
  local added = add_unrest(p, unrest_per_collection)
  if NARRATE then
    note("%s collects %s in %s%s", seat_name(seat), count(amount, one, many), pname(p),
      added > 0 and format(" (unrest now %d)", unrest_in(p)) or "")
  end
end

shogun.action("collect_taxes", function(seat, p, a)
  collect(seat, p, a, tax_of, gain, "tax_yield", "war chest", "war chests", "collecting war chests", "collected.taxes")
end)
shogun.action("collect_rice", function(seat, p, a)
  collect(seat, p, a, rice_of, add_rice, "rice_yield", "rice", "rice", "collecting rice", "collected.rice")
end)

local function deploy(seat, p, a)
  local n = modify_at("deploy_armies", deploys[a], seat, p, a)
  local cost = modify_at("action_cost", costs[a], seat, p, a)
  if chests_of(seat) < cost then skip(seat, p, "cannot pay " .. cost, "cannot_pay") return nil end
  if supply_of(seat) < n then skip(seat, p, "only " .. supply_of(seat) .. " cubes in supply", "no_cubes") return nil end
  pay(seat, cost)
  deploy_to(seat, p, n)
  if NARRATE then note("%s deploys %d in %s for %d (now %d)", seat_name(seat), n, pname(p), cost, armies_in(p)) end
  return n
end

shogun.action("deploy", function(seat, p, a) deploy(seat, p, a) end)

-- Deploy 1, then that cube may move to an adjacent province of his own.
-- `...`: his provinces next to `p` (the question's options; none: no
-- question).
local function ask_move_on(seat, p, n, first, ...)
  if first == nil then return end
  ask_province(seat, "deploy_move", "move the new army on to a neighbouring province of yours, or pass", "deploy_move_to",
    { from = p, n = n }, true, first, ...)
end

shogun.action("deploy_move", function(seat, p, a)
  local n = deploy(seat, p, a)
  if not n then return end
  ask_move_on(seat, p, n, own_targets(p, seat))
end)

shogun.continuation("deploy_move_to", function(seat, to, data)
  if to == nil then return end
  -- The deployed cubes, and only they, may move on.
  move(seat, data.from, to, data.n)
  if NARRATE then
    note("%s moves %s from %s to %s", seat_name(seat), count(data.n, "army", "armies"), pname(data.from), pname(to))
  end
end)

-- `n` armies go from `from` to `to`: a move into his own province, else a
-- battle.
local function move_armies(seat, n, from, to, action)
  local owner = owner_of(to)
  if owner == seat then
    move(seat, from, to, n)
    if NARRATE then note("%s moves %d from %s to %s", seat_name(seat), n, pname(from), pname(to)) end
  elseif owner == nil then
    neutral_battle(seat, from, to, n, action)
  else
    attack(seat, owner, from, to, n, action)
  end
end

local function move_count(seat, n, data)
  move_armies(seat, n, data.from, data.to, data.action)
end

-- Asks where the armies in `p` go; `...`: the provinces they may enter.
local function ask_target(seat, p, a, first, ...)
  if first == nil then return skip(seat, p, "no province it may enter", "no_target") end
  ask_province(seat, "move_target", "move or attack into", "move_target", { from = p, action = a }, false, first, ...)
end

shogun.action("move_attack", function(seat, p, a)
  local behind = armies_left_behind
  if armies_in(p) <= behind then return skip(seat, p, "needs more than " .. count(behind, "army", "armies") .. " to move", "too_few_armies") end
  -- His own provinces next to `p`, then the others ...
  local guards = effects_on("can_attack", seat, a)
  if guards == nil then return ask_target(seat, p, a, move_targets(p, seat)) end
  -- ... of which can_attack effects may forbid some.
  local targets = { own_targets(p, seat) }
  local others = { other_targets(p, seat) }
  for i = 1, #others do
    local q = others[i]
    if apply_effects(guards, true, { seat = seat, province = p, target = q, action = a }) then
      targets[#targets + 1] = q
    end
  end
  ask_target(seat, p, a, unpack(targets))
end)

shogun.continuation("move_target", function(seat, to, data)
  local from, action = data.from, data.action
  local most = armies_in(from) - armies_left_behind
  if most == 1 then return move_armies(seat, 1, from, to, action) end
  ask_count(seat, "move_count", "how many armies go?", "move_count", { from = from, to = to, action = action }, 1, most)
end)

shogun.continuation("move_count", move_count)
