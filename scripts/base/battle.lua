-- Battles: player against player, against a neutral province, and revolts.
-- Every battle throws cubes into the tower with everything in the tray and
-- counts what lands (RULES.md, "Battles and the tower").

local game, note, modify = game, note, modify

local function extra(hook, seat, ctx)
  -- Reading 4: an extra cube is thrown when the supply has one.
  return math.max(0, math.min(modify(hook, 0, ctx), game.supply(seat)))
end

-- `seat` attacks province `to` of `defender` with `n` armies from `from`.
function attack(seat, defender, from, to, n, action)
  game.battle("attack", to)
  local xa = extra("attacker_extra", seat, { seat = seat, province = to, source = from, action = action })
  local xd = extra("defender_extra", defender, { seat = defender, province = to, attacker = seat, action = action })
  local dn = game.armies(to)
  local peasants_defend = game.unrest(to) == 0
  if NARRATE then
    note("%s attacks %s (%s, %d armies) from %s with %d%s%s", seat_name(seat), pname(to), seat_name(defender), dn,
      pname(from), n, xa > 0 and string.format(" +%d from supply", xa) or "",
      xd > 0 and string.format("; %s adds %d from supply", seat_name(defender), xd) or "")
  end
  local spec = { { seat = seat, from = from, n = n }, { seat = defender, from = to, n = dn } }
  if xa > 0 then spec[#spec + 1] = { seat = seat, n = xa } end
  if xd > 0 then spec[#spec + 1] = { seat = defender, n = xd } end
  local tray = game.throw(spec)
  local a, d, p = tray[seat], tray[defender], tray.peasants
  local helpers = peasants_defend and p or 0
  local def = d + helpers
  if not peasants_defend then note("%s has unrest: the peasants take no side", pname(to)) end
  if a > def then
    -- The attacker conquers; he loses as many cubes as the defence counted.
    game.tray_to_supply(defender, d)
    game.tray_to_supply(seat, def)
    game.conquer(to, seat)
    game.tray_to_province(seat, to, a - def)
    note("%s wins %d:%d and holds %s with %d", seat_name(seat), a, def, pname(to), a - def)
  elseif d == 0 then
    -- Only peasants (or nothing) for the defender: he cannot hold it.
    game.tray_to_supply(seat, a)
    game.neutralize(to)
    note("no defending army landed: %s becomes neutral", pname(to))
  elseif def > a then
    -- The defender holds; peasants are lost first.
    local lost_peasants = math.min(a, helpers)
    local lost = a - lost_peasants
    game.tray_to_supply(seat, a)
    game.tray_to_supply(defender, lost)
    game.tray_to_province(defender, to, d - lost)
    note("%s defends %d:%d and keeps %s with %d", seat_name(defender), def, a, pname(to), d - lost)
  else
    game.tray_to_supply(seat, a)
    game.tray_to_supply(defender, d)
    game.neutralize(to)
    note("tie %d:%d: %s loses its buildings and armies and becomes neutral", a, def, pname(to))
  end
  if peasants_defend then game.tray_peasants_to_supply() end
end

-- `seat` enters neutral province `to` with `n` armies from `from`.
function neutral_battle(seat, from, to, n, action)
  game.battle("neutral", to)
  local xa = extra("attacker_extra", seat, { seat = seat, province = to, source = from, action = action })
  local k = math.max(0, math.min(modify("neutral_peasants", 1, { seat = seat, province = to, action = action }),
    game.peasant_supply()))
  local peasants_defend = game.unrest(to) == 0
  if NARRATE then
    note("%s enters neutral %s from %s with %d%s against %d peasant(s)", seat_name(seat), pname(to), pname(from), n,
      xa > 0 and string.format(" +%d from supply", xa) or "", k)
  end
  local spec = { { seat = seat, from = from, n = n }, peasants = k }
  if xa > 0 then spec[#spec + 1] = { seat = seat, n = xa } end
  local tray = game.throw(spec)
  local a, p = tray[seat], tray.peasants
  local def = peasants_defend and p or 0
  if a > def then
    game.tray_to_supply(seat, def)
    game.conquer(to, seat)
    game.tray_to_province(seat, to, a - def)
    note("%s takes %s with %d", seat_name(seat), pname(to), a - def)
  else
    game.tray_to_supply(seat, a)
    note("%s stays neutral (%d:%d)", pname(to), a, def)
  end
  if peasants_defend then game.tray_peasants_to_supply() end
end

-- Peasants rise in `p` against its owner `seat`. Returns true if he holds it.
function revolt(seat, p, peasants, why)
  game.battle("revolt", p)
  local k = math.min(peasants, game.peasant_supply())
  local dn = game.armies(p)
  note("revolt in %s (%s): %d peasant(s) against %d armies", pname(p), why, k, dn)
  local tray = game.throw({ { seat = seat, from = p, n = dn }, peasants = k })
  local d, q = tray[seat], tray.peasants
  game.tray_peasants_to_supply()
  if q >= d then
    game.tray_to_supply(seat, d)
    game.neutralize(p)
    note("the peasants win %d:%d: %s becomes neutral", q, d, pname(p))
    return false
  end
  game.tray_to_supply(seat, q)
  game.tray_to_province(seat, p, d - q)
  note("%s puts down the revolt %d:%d and keeps %s with %d", seat_name(seat), d, q, pname(p), d - q)
  return true
end
