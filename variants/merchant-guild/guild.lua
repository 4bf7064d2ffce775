-- The Merchant guild's effect: a discount that never makes a cost negative.
shogun.modifier("guild_discount", function(cost, effect)
  return math.max(0, cost - effect.value)
end)
