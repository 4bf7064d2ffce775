-- Helpers shared by the base pack's scripts, and the modifier pipeline.

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

-- Host and prelude functions called on every action, kept in file-level
-- locals from before `game`, `shogun` and `string` were plain tables
-- (docs/lua-api.md; this file moves to `game.name(...)` next).
local effects_of, tally = game.effects, game.tally
local modifiers, format = shogun.modifiers, string.format

-- Names for narration, looked up once while the pack loads.
local seat_names, province_names = {}, {}
for i, s in ipairs(RULES.seats) do seat_names[i] = s.name end
for i, p in ipairs(MAP.provinces) do province_names[i] = p.name end
function seat_name(s) return seat_names[s] end
function pname(p) return province_names[p] end
-- Narration is game.note (docs/lua-api.md: string.format's conversions
-- and %S, %P and %n; nothing is formatted in bulk runs). `note` is its
-- name from before the runtime had it, kept for packs that call it.
note = game.note

-- "1 army", "2 armies", "0 peasants": a count with its noun in the right
-- number. `plural` defaults to the singular with an "s".
function count(n, singular, plural)
  return format("%d %s", n, n == 1 and singular or (plural or singular .. "s"))
end

-- Passes `value` through every active effect on `hook`: the host lists
-- them in RULES.modifier_order (event, then special, then always-on
-- effects from RULES.effects), filtered by the effects' `actions`.
-- ctx: {seat=, province=, action=, ...} (whatever the modifiers need).
function modify(hook, value, ctx)
  return apply_effects(effects_of(hook, ctx.seat, ctx.action), value, ctx)
end

-- `modify` for the common context (seat, province, action), made only when
-- an effect acts: most of the time none does, and the table is not needed.
function modify_at(hook, value, seat, province, action)
  local effects = effects_of(hook, seat, action)
  if effects == nil then return value end
  return apply_effects(effects, value, { seat = seat, province = province, action = action })
end

-- The second half of `modify`, for callers that fetched the effects once
-- (game.effects(hook, seat, action)) and apply them many times.
function apply_effects(effects, value, ctx)
  if effects == nil then return value end
  for i = 1, #effects do
    local effect = effects[i]
    value = modifiers[effect.modifier](value, effect, ctx)
  end
  return value
end

-- Skips an action that cannot be performed in full. `reason` is a short
-- word for statistics (`skipped.REASON` in `shogun lab`), `why` the
-- narration.
function skip(seat, p, why, reason)
  tally("skipped." .. (reason or "other"), seat)
  note("%s cannot act in %s: %s (skipped)", seat_name(seat), pname(p), why)
end
