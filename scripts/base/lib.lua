-- Helpers shared by the base pack's scripts, and the modifier pipeline.
-- Globals defined here for the other files (and for variants): seat_name,
-- pname, count, modify, skip.
--
-- Narration: `game.note` formats nothing in bulk runs (NARRATE false), but
-- a call still crosses into the host and its arguments are still worked
-- out; on the paths every action takes, the pack writes
-- `if NARRATE then game.note(...) end` so that a lab's thousands of games
-- pay for neither (about 460 machine instructions a call,
-- docs/lua-api.md).

-- Every hook a card effect may name.
shogun.hooks {
  "tax_yield",        -- war chests from Collect taxes
  "rice_yield",       -- rice from Collect rice
  "deploy_armies",    -- armies placed by a deploy action
  "attacker_extra",   -- extra cubes the attacker throws from his supply
  "defender_extra",   -- extra cubes the defender throws from his supply
  "neutral_peasants", -- peasants thrown for a neutral province
  "can_attack",       -- false: the target may not be attacked
  "after_build",      -- unrest markers removed after building
  "action_cost",      -- war chests an action costs
  "winter_rice_loss", -- rice each player loses in winter
}

-- Names for narration, looked up once while the pack loads.
local seat_names, province_names = {}, {}
for i, s in ipairs(RULES.seats) do seat_names[i] = s.name end
for i, p in ipairs(MAP.provinces) do province_names[i] = p.name end
function seat_name(s) return seat_names[s] end
function pname(p) return province_names[p] end

-- "1 army", "2 armies", "0 peasants": a count with its noun in the right
-- number. `plural` defaults to the singular with an "s".
function count(n, singular, plural)
  return string.format("%d %s", n, n == 1 and singular or (plural or singular .. "s"))
end

-- Passes `value` through every effect in force on `hook` for `seat`
-- doing `action` in `province` (the active event's effects, then the
-- seat's special card's, then RULES.effects, in RULES.modifier_order,
-- filtered by the effects' `actions`: game.effects) and returns what
-- comes out. Each modifier gets the context
-- `{ seat =, province =, action =, target = }` (`target`: the province
-- attacked, for can_attack), made only when an effect acts.
function modify(hook, value, seat, province, action, target)
  local effects = game.effects(hook, seat, action)
  if effects == nil then return value end
  local ctx = { seat = seat, province = province, action = action, target = target }
  for i = 1, #effects do
    local effect = effects[i]
    value = shogun.modifiers[effect.modifier](value, effect, ctx)
  end
  return value
end

-- Skips an action that cannot be performed in full. `reason` is a short
-- word for statistics (`skipped.REASON` in `shogun lab`), `why` the
-- narration.
function skip(seat, p, why, reason)
  game.tally("skipped." .. (reason or "other"), seat)
  if NARRATE then game.note("%S cannot act in %P: %s (skipped)", seat, p, why) end
end
