-- Battles: player against player, against a neutral province, and revolts.
-- Every battle throws cubes into the tower with everything in the tray and
-- counts what lands (docs/rules.md, "Battles").
-- Uses from lib.lua: modify, seat_name, pname. Defines for the other
-- files: attack and neutral_battle (actions.lua), revolt (actions.lua,
-- winter.lua), battle_outcome and province_lost (the rules registered
-- under rules.yaml `handlers`, called here).

-- Battle outcomes as statistics (game.tally) from the side of the player
-- who fought: the attacker in attacks, the owner in revolts.
local WON = { attacker = "won", defender = "lost" }
local HELD = { attacker = "lost", defender = "held" }
-- The statistics' names, made once (not concatenated per battle).
local function tally_names(prefix, outcomes)
  local names = {}
  for _, outcome in ipairs({ "attacker", "defender", "tie" }) do names[outcome] = prefix .. (outcomes[outcome] or outcome) end
  return names
end
local ATTACK_TALLY, NEUTRAL_TALLY = tally_names("battles.attack.", WON), tally_names("battles.neutral.", WON)
local WINTER_TALLY, COLLECTION_TALLY = tally_names("battles.winter_revolt.", HELD), tally_names("battles.collection_revolt.", HELD)

-- Who wins, from what landed. kind: "attack" (player against player),
-- "neutral" (against a neutral province's peasants) or "revolt" (peasants
-- against the player, who is the defender). a, d: cubes of attacker and
-- defender in the tray (0 for the peasants' side), p: peasants in the tray,
-- unrest: the defended province has unrest (peasants then take no side in
-- attacks). Returns the outcome ("attacker", "defender" or "tie") and how
-- many cubes of the attacker and of the defender stay in the province.
shogun.handler("battle_outcome", function(kind, a, d, p, unrest)
  if kind == "revolt" then
    -- The peasants attack; a tie goes to them.
    if p >= d then return "attacker", 0, 0 end
    return "defender", 0, d - p
  end
  local helpers = unrest and 0 or p
  local def = d + helpers
  if a > def then return "attacker", a - def, 0 end
  if kind == "neutral" then return "defender", 0, 0 end
  -- Only peasants (or nothing) landed for the defender: he cannot hold it.
  if d == 0 then return "tie", 0, 0 end
  if def > a then
    -- The defender loses as many as the attacker had, peasants first.
    local lost = a - math.min(a, helpers)
    return "defender", 0, d - lost
  end
  return "tie", 0, 0
end)

-- The battle rule as registered under rules.yaml `handlers.battle`: games
-- and `shogun tower odds` call the same function, so a variant that
-- replaces it changes both.
function battle_outcome(kind, a, d, p, unrest)
  return shogun.handlers[RULES.handlers.battle](kind, a, d, p, unrest)
end

-- A province its owner lost in a battle (to `to`, or to nobody): the rule
-- registered under rules.yaml `handlers.province_lost` says what becomes
-- of the action he planned there (docs/rules.md, "Readings").
function province_lost(seat, p, to)
  shogun.handlers[RULES.handlers.province_lost](seat, p, to)
end

-- Extra cubes a side may throw from its supply (the attack and defence
-- specials, the castle event): only as many as the supply has.
local function attacker_extra(seat, to, action)
  local extra = modify("attacker_extra", 0, seat, to, action)
  return extra > 0 and math.min(extra, game.supply(seat)) or 0
end
local function defender_extra(defender, to, action)
  local extra = modify("defender_extra", 0, defender, to, action)
  return extra > 0 and math.min(extra, game.supply(defender)) or 0
end

-- Both rulebooks say the holder *may* throw these cubes (docs/rules.md,
-- "Readings"): he is asked how many of them he throws (a count question
-- of kind "extra_cubes", 0 up to what the cards allow), the attacker
-- first, then the defender. params.ask_extra_cubes: 1 (the books), or 0
-- (every allowed cube is thrown without asking; the variant
-- always-extra-cubes).
local function asks_extra_cubes()
  return RULES.params.ask_extra_cubes ~= 0
end

-- What a battle tells the transcript. The battle paths run thousands of
-- times in bulk runs, where nobody reads the narration: game.note then
-- formats nothing, but its arguments would still be worked out, so these
-- run only `if NARRATE`.
local function narrate_attack(seat, defender, from, to, n, xa, xd, dn)
  game.note("%S attacks %P (%S, %n) from %P with %d%s%s", seat, to, defender, dn, "army/armies", from, n,
    xa > 0 and string.format(" +%d from supply", xa) or "", xd > 0 and string.format("; %s adds %d from supply", seat_name(defender), xd) or "")
end
local function narrate_outcome(seat, defender, to, outcome, a, d, a_left, d_left)
  if outcome == "attacker" then
    game.note("%S wins %d:%d and holds %P with %d", seat, a, d, to, a_left)
  elseif outcome == "defender" then
    game.note("%S defends %d:%d and keeps %P with %d", defender, d, a, to, d_left)
  elseif d == 0 then
    game.note("no defending army landed: %P becomes neutral", to)
  else
    game.note("tie %d:%d: %P loses its buildings and armies and becomes neutral", a, d, to)
  end
end

-- The battle itself, once both sides' extra cubes are known: the throw
-- (game.fight), the pack's battle rule, and where the cubes go
-- (game.settle): counted cubes that do not stay in the province go back
-- to the supplies, and peasants who counted to the general supply.
local function fight(seat, defender, from, to, n, xa, xd)
  local _, dn, unrest_markers = game.province(to)
  local unrest = unrest_markers > 0
  if NARRATE then narrate_attack(seat, defender, from, to, n, xa, xd, dn) end
  local p, a, d = game.fight("attack", to, seat, from, n, xa, defender, xd, 0)
  if unrest then game.note("%P has unrest: the peasants take no side", to) end
  local outcome, a_left, d_left = battle_outcome("attack", a, d, p, unrest)
  game.tally(ATTACK_TALLY[outcome] or "battles.attack." .. outcome, seat)
  local holder = outcome == "attacker" and seat or outcome == "defender" and defender or nil
  game.settle(to, holder, seat, a_left, defender, d_left, not unrest)
  if holder ~= defender then province_lost(defender, to, holder) end
  -- (Peasants who landed count for the defender, unless there is unrest.)
  if NARRATE then narrate_outcome(seat, defender, to, outcome, a, d + (unrest and 0 or p), a_left, d_left) end
end

-- The defender's question, if he may add cubes; else the battle.
local function defend(seat, defender, from, to, n, action, xa)
  local xd = defender_extra(defender, to, action)
  if xd == 0 or not asks_extra_cubes() then return fight(seat, defender, from, to, n, xa, xd) end
  game.ask_count(defender, "extra_cubes", string.format("%s attacks %s with %d%s: throw how many extra cubes from your supply (up to %d)?",
    seat_name(seat), pname(to), n, xa > 0 and string.format(" +%d", xa) or "", xd), "defender_extra_cubes",
    { seat = seat, defender = defender, from = from, to = to, n = n, xa = xa }, 0, xd)
end

-- `seat` attacks province `to` of `defender` with `n` armies from `from`.
function attack(seat, defender, from, to, n, action)
  local xa = attacker_extra(seat, to, action)
  if xa == 0 or not asks_extra_cubes() then return defend(seat, defender, from, to, n, action, xa) end
  game.ask_count(seat, "extra_cubes", string.format("attack %s with %d: throw how many extra cubes from your supply (up to %d)?", pname(to), n, xa),
    "attacker_extra_cubes", { defender = defender, from = from, to = to, n = n, action = action }, 0, xa)
end

shogun.continuation("attacker_extra_cubes", function(seat, k, data)
  defend(seat, data.defender, data.from, data.to, data.n, data.action, k)
end)
shogun.continuation("defender_extra_cubes", function(_, k, data)
  fight(data.seat, data.defender, data.from, data.to, data.n, data.xa, k)
end)

-- `seat` enters neutral province `to` with `n` armies from `from`, `xa`
-- extra cubes from his supply.
local function enter_neutral(seat, from, to, n, action, xa)
  local peasants = modify("neutral_peasants", RULES.params.neutral_peasants, seat, to, action)
  local k = math.max(0, math.min(peasants, game.peasant_supply()))
  local unrest = game.unrest(to) > 0
  if NARRATE then
    game.note("%S enters neutral %P from %P with %d%s against %n", seat, to, from, n, xa > 0 and string.format(" +%d from supply", xa) or "", k,
      "peasant")
  end
  local p, a = game.fight("neutral", to, seat, from, n, xa, nil, nil, k)
  local outcome, a_left = battle_outcome("neutral", a, 0, p, unrest)
  game.tally(NEUTRAL_TALLY[outcome] or "battles.neutral." .. outcome, seat)
  game.settle(to, outcome == "attacker" and seat or nil, seat, a_left, nil, nil, not unrest)
  if not NARRATE then return end
  if outcome == "attacker" then
    game.note("%S takes %P with %d", seat, to, a_left)
  else
    game.note("%P stays neutral (%d:%d)", to, a, unrest and 0 or p)
  end
end

-- `seat` enters neutral province `to` with `n` armies from `from`.
function neutral_battle(seat, from, to, n, action)
  local xa = attacker_extra(seat, to, action)
  if xa == 0 or not asks_extra_cubes() then return enter_neutral(seat, from, to, n, action, xa) end
  game.ask_count(seat, "extra_cubes", string.format("enter neutral %s with %d: throw how many extra cubes from your supply (up to %d)?", pname(to), n, xa),
    "neutral_extra_cubes", { from = from, to = to, n = n, action = action }, 0, xa)
end

shogun.continuation("neutral_extra_cubes", function(seat, k, data)
  enter_neutral(seat, data.from, data.to, data.n, data.action, k)
end)

-- Peasants rise in `p` against its owner `seat`. Returns true if he holds it.
function revolt(seat, p, peasants, why)
  local k = math.min(peasants, game.peasant_supply())
  local _, dn = game.province(p)
  if NARRATE then game.note("revolt in %P (%s): %n against %n", p, why, k, "peasant", dn, "army/armies") end
  local q, _, d = game.fight("revolt", p, nil, nil, nil, nil, seat, nil, k)
  local outcome, _, d_left = battle_outcome("revolt", 0, d, q, false)
  if why == "winter" then
    game.tally(WINTER_TALLY[outcome] or "battles.winter_revolt." .. outcome, seat)
  else
    game.tally(COLLECTION_TALLY[outcome] or "battles.collection_revolt." .. outcome, seat)
  end
  local holds = outcome == "defender"
  game.settle(p, holds and seat or nil, nil, nil, seat, d_left, true)
  if not holds then province_lost(seat, p, nil) end
  if NARRATE then
    if holds then
      game.note("%S puts down the revolt %d:%d and keeps %P with %d", seat, d, q, p, d_left)
    elseif q == d then
      game.note("the revolt ties %d:%d, and a tie goes to the peasants: %P becomes neutral", q, d, p)
    else
      game.note("the peasants win %d:%d: %P becomes neutral", q, d, p)
    end
  end
  return holds
end
