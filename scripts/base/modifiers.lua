-- Modifiers that card effects name: function(value, effect, ctx) -> value.

shogun.modifier("add", function(v, effect) return v + effect.value end)
shogun.modifier("set", function(_, effect) return effect.value end)
shogun.modifier("at_most", function(v, effect) return math.min(v, effect.value) end)
shogun.modifier("at_least", function(v, effect) return math.max(v, effect.value) end)

-- Castle event: the defender of a province with a castle throws extra cubes.
shogun.modifier("castle_garrison", function(v, effect, ctx)
  if game.has(ctx.province, "castle") then return v + effect.value end
  return v
end)

-- Temple event: a province with a temple cannot be attacked.
shogun.modifier("temple_sanctuary", function(v, _, ctx)
  if game.has(ctx.target, "temple") then return false end
  return v
end)

-- Theatre event: building removes unrest markers.
shogun.modifier("calm_unrest", function(v, effect) return v + effect.value end)
