-- Battles: player against player, against a neutral province, and revolts.
-- Every battle throws cubes into the tower with everything in the tray and
-- counts what lands (RULES.md, "Battles and the tower").

local game, note, modify = game, note, modify
-- Host functions called on every action, kept in file-level locals: a
-- read through the sealed `game` table goes through its metatable.
local max, min = math.max, math.min
local tray_to_supply, tray_to_province, tally, tray_peasants_to_supply, throw_cubes, unrest_in, peasant_supply, neutralize, conquer, armies_in, supply_of, effects_on =
  game.tray_to_supply, game.tray_to_province, game.tally, game.tray_peasants_to_supply, game.throw_cubes, game.unrest, game.peasant_supply, game.neutralize, game.conquer, game.armies, game.supply, game.effects
local record_battle, handlers, format = game.battle, shogun.handlers, string.format
-- Read once at load (RULES is final by then).
local battle_handler, neutral_peasants = RULES.handlers.battle, RULES.params.neutral_peasants
local province_lost_handler = RULES.handlers.province_lost

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
    local lost = a - min(a, helpers)
    return "defender", 0, d - lost
  end
  return "tie", 0, 0
end)

-- The battle rule as registered under rules.yaml `handlers.battle`: games
-- and `shogun tower odds` call the same function, so a variant that
-- replaces it changes both.
function battle_outcome(kind, a, d, p, unrest)
  return handlers[battle_handler](kind, a, d, p, unrest)
end

-- A province its owner lost in a battle (to `to`, or to nobody): the rule
-- registered under rules.yaml `handlers.province_lost` says what becomes
-- of the action he planned there (docs/rules.md, "Readings").
function province_lost(seat, p, to)
  handlers[province_lost_handler](seat, p, to)
end

-- Extra cubes a side may throw from its supply (the attack and defence
-- specials, the castle event): only as many as the supply has. The
-- modifiers' context is built only when an effect acts.
local function attacker_extra(seat, to, from, action)
  local effects = effects_on("attacker_extra", seat, action)
  if effects == nil then return 0 end
  return max(0, min(apply_effects(effects, 0, { seat = seat, province = to, source = from, action = action }), supply_of(seat)))
end
local function defender_extra(defender, to, seat, action)
  local effects = effects_on("defender_extra", defender, action)
  if effects == nil then return 0 end
  return max(0, min(apply_effects(effects, 0, { seat = defender, province = to, attacker = seat, action = action }), supply_of(defender)))
end

-- Both rulebooks say the holder *may* throw these cubes (docs/rules.md,
-- "Readings"): he is asked how many of them he throws (a count question
-- of kind EXTRA_CUBES, 0 up to what the cards allow), the attacker first,
-- then the defender. params.ask_extra_cubes: 1 (the books), or 0 (every
-- allowed cube is thrown without asking; the variant always-extra-cubes).
local EXTRA_CUBES = "extra_cubes"
local always_extra = RULES.params.ask_extra_cubes == 0
local ask_count = game.ask_count

-- The battle itself, once both sides' extra cubes are known.
local function fight(seat, defender, from, to, n, xa, xd)
  record_battle("attack", to)
  local dn = armies_in(to)
  local unrest = unrest_in(to) > 0
  if NARRATE then
    note("%s attacks %s (%s, %s) from %s with %d%s%s", seat_name(seat), pname(to), seat_name(defender), count(dn, "army", "armies"),
      pname(from), n, xa > 0 and format(" +%d from supply", xa) or "",
      xd > 0 and format("; %s adds %d from supply", seat_name(defender), xd) or "")
  end
  local p, a, d = throw_cubes(0, seat, from, n, defender, to, dn, seat, nil, xa, defender, nil, xd)
  if NARRATE and unrest then note("%s has unrest: the peasants take no side", pname(to)) end
  local outcome, a_left, d_left = battle_outcome("attack", a, d, p, unrest)
  tally(ATTACK_TALLY[outcome] or "battles.attack." .. outcome, seat)
  -- Counted cubes that do not stay in the province go back to the supplies.
  tray_to_supply(seat, a - a_left)
  tray_to_supply(defender, d - d_left)
  if outcome == "attacker" then
    conquer(to, seat)
    tray_to_province(seat, to, a_left)
    province_lost(defender, to, seat)
    if NARRATE then note("%s wins %d:%d and holds %s with %d", seat_name(seat), a, d + (unrest and 0 or p), pname(to), a_left) end
  elseif outcome == "defender" then
    tray_to_province(defender, to, d_left)
    if NARRATE then note("%s defends %d:%d and keeps %s with %d", seat_name(defender), d + (unrest and 0 or p), a, pname(to), d_left) end
  else
    neutralize(to)
    province_lost(defender, to, nil)
    if d == 0 then
      if NARRATE then note("no defending army landed: %s becomes neutral", pname(to)) end
    else
      if NARRATE then note("tie %d:%d: %s loses its buildings and armies and becomes neutral", a, d + (unrest and 0 or p), pname(to)) end
    end
  end
  -- Peasants who counted go back to the general supply.
  if not unrest then tray_peasants_to_supply() end
end

-- The defender's question, if he may add cubes; else the battle.
local function defend(seat, defender, from, to, n, action, xa)
  local xd = defender_extra(defender, to, seat, action)
  if xd == 0 or always_extra then return fight(seat, defender, from, to, n, xa, xd) end
  ask_count(defender, EXTRA_CUBES, format("%s attacks %s with %d%s: throw how many extra cubes from your supply (up to %d)?",
    seat_name(seat), pname(to), n, xa > 0 and format(" +%d", xa) or "", xd), "defender_extra_cubes",
    { seat = seat, defender = defender, from = from, to = to, n = n, xa = xa }, 0, xd)
end

-- `seat` attacks province `to` of `defender` with `n` armies from `from`.
function attack(seat, defender, from, to, n, action)
  local xa = attacker_extra(seat, to, from, action)
  if xa == 0 or always_extra then return defend(seat, defender, from, to, n, action, xa) end
  ask_count(seat, EXTRA_CUBES, format("attack %s with %d: throw how many extra cubes from your supply (up to %d)?", pname(to), n, xa),
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
  record_battle("neutral", to)
  local k = max(0, min(modify_at("neutral_peasants", neutral_peasants, seat, to, action), peasant_supply()))
  local unrest = unrest_in(to) > 0
  if NARRATE then
    note("%s enters neutral %s from %s with %d%s against %s", seat_name(seat), pname(to), pname(from), n,
      xa > 0 and format(" +%d from supply", xa) or "", count(k, "peasant"))
  end
  local p, a = throw_cubes(k, seat, from, n, seat, nil, xa)
  local outcome, a_left = battle_outcome("neutral", a, 0, p, unrest)
  tally(NEUTRAL_TALLY[outcome] or "battles.neutral." .. outcome, seat)
  tray_to_supply(seat, a - a_left)
  if outcome == "attacker" then
    conquer(to, seat)
    tray_to_province(seat, to, a_left)
    if NARRATE then note("%s takes %s with %d", seat_name(seat), pname(to), a_left) end
  else
    if NARRATE then note("%s stays neutral (%d:%d)", pname(to), a, unrest and 0 or p) end
  end
  if not unrest then tray_peasants_to_supply() end
end

-- `seat` enters neutral province `to` with `n` armies from `from`.
function neutral_battle(seat, from, to, n, action)
  local xa = attacker_extra(seat, to, from, action)
  if xa == 0 or always_extra then return enter_neutral(seat, from, to, n, action, xa) end
  ask_count(seat, EXTRA_CUBES, format("enter neutral %s with %d: throw how many extra cubes from your supply (up to %d)?", pname(to), n, xa),
    "neutral_extra_cubes", { from = from, to = to, n = n, action = action }, 0, xa)
end

shogun.continuation("neutral_extra_cubes", function(seat, k, data)
  enter_neutral(seat, data.from, data.to, data.n, data.action, k)
end)

-- Peasants rise in `p` against its owner `seat`. Returns true if he holds it.
function revolt(seat, p, peasants, why)
  record_battle("revolt", p)
  local k = min(peasants, peasant_supply())
  local dn = armies_in(p)
  if NARRATE then note("revolt in %s (%s): %s against %s", pname(p), why, count(k, "peasant"), count(dn, "army", "armies")) end
  local q, d = throw_cubes(k, seat, p, dn)
  local outcome, _, d_left = battle_outcome("revolt", 0, d, q, false)
  if why == "winter" then
    tally(WINTER_TALLY[outcome] or "battles.winter_revolt." .. outcome, seat)
  else
    tally(COLLECTION_TALLY[outcome] or "battles.collection_revolt." .. outcome, seat)
  end
  tray_peasants_to_supply()
  tray_to_supply(seat, d - d_left)
  if outcome == "attacker" then
    neutralize(p)
    province_lost(seat, p, nil)
    if NARRATE then
      if q == d then
        note("the revolt ties %d:%d, and a tie goes to the peasants: %s becomes neutral", q, d, pname(p))
      else
        note("the peasants win %d:%d: %s becomes neutral", q, d, pname(p))
      end
    end
    return false
  end
  tray_to_province(seat, p, d_left)
  if NARRATE then note("%s puts down the revolt %d:%d and keeps %s with %d", seat_name(seat), d, q, pname(p), d_left) end
  return true
end
