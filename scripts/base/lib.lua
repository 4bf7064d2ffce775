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
}

function seat_name(s) return RULES.seats[s].name end
function pname(p) return MAP.provinces[p].name end
-- Narrates a line of the transcript (skipped when nobody reads it:
-- NARRATE is false in bulk runs).
function note(fmt, ...)
  if NARRATE then game.log(string.format(fmt, ...)) end
end

-- Passes `value` through every active effect on `hook`: the host lists
-- them in RULES.modifier_order (event, then special, then always-on
-- effects from RULES.effects), filtered by the effects' `actions`.
-- ctx: {seat=, province=, action=, ...} (whatever the modifiers need).
function modify(hook, value, ctx)
  local effects = game.effects(hook, ctx.seat, ctx.action)
  if effects == nil then return value end
  for _, effect in ipairs(effects) do
    value = shogun.modifier_fn(effect.modifier)(value, effect, ctx)
  end
  return value
end

-- Skips an action that cannot be performed in full.
function skip(seat, p, why)
  note("%s cannot act in %s: %s (skipped)", seat_name(seat), pname(p), why)
end
