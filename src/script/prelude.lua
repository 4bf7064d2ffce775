-- The runtime's own Lua, loaded before any pack: the registration API and
-- helpers every pack may use. It holds no rules.
local registry = { actions = {}, continuations = {}, modifiers = {}, handlers = {}, hooks = {}, towers = {} }
local sealed = false
-- Who registered (or last replaced) each name: "base" or a variant's name.
local owner = { actions = {}, continuations = {}, modifiers = {}, handlers = {}, towers = {} }
-- The pack whose files are loading now, and the variants it may override.
local loading = { name = "base", overrides = {} }

local function check(what, name, fn)
  if sealed then
    error("shogun." .. what .. ": handlers can only be registered while the pack loads", 3)
  end
  if type(name) ~= "string" then
    error("shogun." .. what .. ": expected a name (string), got " .. type(name), 3)
  end
  if type(fn) ~= "function" then
    error("shogun." .. what .. "('" .. name .. "'): expected a function, got " .. type(fn), 3)
  end
end

local function register(kind, what)
  return function(name, fn)
    check(what, name, fn)
    if registry[kind][name] ~= nil then
      error("shogun." .. what .. ": `" .. name .. "` is already registered by `" .. owner[kind][name]
        .. "` (use shogun.replace(\"" .. what .. "\", \"" .. name .. "\", fn) to change it)", 2)
    end
    registry[kind][name] = fn
    owner[kind][name] = loading.name
  end
end

local kinds = { action = "actions", continuation = "continuations", modifier = "modifiers", handler = "handlers",
  tower = "towers" }

shogun = {
  -- shogun.action(name, function(seat, province, action) ... end)
  action = register("actions", "action"),
  -- shogun.continuation(name, function(seat, choice, data) ... end)
  continuation = register("continuations", "continuation"),
  -- shogun.modifier(name, function(value, effect, ctx) return value end)
  modifier = register("modifiers", "modifier"),
  -- shogun.handler(name, function() ... end): winter, score, year_end, battle
  handler = register("handlers", "handler"),
  -- shogun.tower(name, function(thrown, inside, random) return landed, inside end)
  tower = register("towers", "tower"),
}

-- Replaces a registered handler by name: shogun.replace("action",
-- "collect_taxes", fn). Two variants replacing the same name is an error
-- unless the later one lists the earlier under `overrides:`.
function shogun.replace(what, name, fn)
  local kind = kinds[what]
  if kind == nil then
    error("shogun.replace: unknown kind `" .. tostring(what) .. "` (action, continuation, modifier, handler, tower)", 2)
  end
  check("replace", name, fn)
  if registry[kind][name] == nil then
    error("shogun.replace: no " .. what .. " `" .. name .. "` is registered to replace", 2)
  end
  local previous = owner[kind][name]
  if previous ~= "base" and previous ~= loading.name and not loading.overrides[previous] then
    error("shogun.replace: " .. what .. " `" .. name .. "` is replaced by both `" .. previous .. "` and `"
      .. loading.name .. "`; add `overrides: [" .. previous .. "]` to " .. loading.name
      .. "'s variant.yaml if it should win", 2)
  end
  registry[kind][name] = fn
  owner[kind][name] = loading.name
end

-- The previous function registered under a name (for a replacement that
-- wraps the original): shogun.original("action", "collect_taxes").
function shogun.original(what, name)
  local kind = kinds[what]
  return kind and registry[kind][name]
end

-- Declares the hook names a pack passes values through; cards may only
-- name declared hooks.
function shogun.hooks(list)
  if sealed then error("shogun.hooks: only while the pack loads", 2) end
  for _, h in ipairs(list) do registry.hooks[h] = true end
end

-- The modifier registered under `name` (nil if none).
function shogun.modifier_fn(name)
  return registry.modifiers[name]
end

-- The handler registered under `name` (nil if none). Packs call their
-- replaceable rules through this, so a replacement changes every caller.
function shogun.handler_fn(name)
  return registry.handlers[name]
end

local raw_pairs = pairs
local raw_setmetatable = setmetatable
local raw_get = rawget
local function key_less(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return ta < tb end
  return a < b
end

-- The keys of `t`, sorted (numbers before strings).
function sorted_keys(t)
  local keys = {}
  for k in raw_pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, key_less)
  return keys
end

-- Iterates `t` in sorted key order. `pairs` is this too: Lua's own order
-- differs between runs, and games must not.
function spairs(t)
  local keys = sorted_keys(t)
  local i = 0
  return function()
    i = i + 1
    local k = keys[i]
    if k ~= nil then return k, t[k] end
  end
end
pairs = spairs

-- Pattern matching runs in C, where the time limit cannot interrupt it,
-- and backtracking makes a pattern's worst case grow as the subject's
-- length to the power of its quantifiers (`string.rep("a", 30):find(
-- string.rep("a*", 30) .. "b")` would run for ages). A pattern whose worst
-- case exceeds MAX_MATCH_STEPS for the subject at hand is refused.
local MAX_MATCH_STEPS = 1e8
do
  local s_byte, m_log, m_type, num_string = string.byte, math.log, type, tostring
  local function subject_length(s)
    local ts = m_type(s)
    if ts == "string" then return #s end
    if ts == "number" then return #num_string(s) end
    return nil
  end
  local function check(fname, s, pattern)
    local n = subject_length(s)
    if n == nil then return end
    if m_type(pattern) == "number" then pattern = num_string(pattern) end
    if m_type(pattern) ~= "string" then return end
    local len, i, quantifiers, optional = #pattern, 1, 0, 0
    if s_byte(pattern, 1) ~= 94 then quantifiers = 1 end -- unanchored: every start position
    while i <= len do
      local c = s_byte(pattern, i)
      if c == 37 then -- %x: an escaped character or class
        i = i + 1
      elseif c == 91 then -- [set]
        i = i + 1
        if s_byte(pattern, i) == 94 then i = i + 1 end
        if s_byte(pattern, i) == 93 then i = i + 1 end
        while i <= len and s_byte(pattern, i) ~= 93 do
          if s_byte(pattern, i) == 37 then i = i + 1 end
          i = i + 1
        end
      elseif c == 42 or c == 43 or c == 45 then -- * + -
        quantifiers = quantifiers + 1
      elseif c == 63 then -- ?
        optional = optional + 1
      end
      i = i + 1
    end
    if quantifiers * m_log(n + 1) + optional * m_log(2) > m_log(MAX_MATCH_STEPS) then
      error(fname .. ": pattern too costly for a subject of " .. n .. " characters (its worst case exceeds "
        .. string.format("%.0f", MAX_MATCH_STEPS) .. " steps): use fewer repetitions or a shorter subject", 3)
    end
  end
  local find, match, gmatch, gsub = string.find, string.match, string.gmatch, string.gsub
  string.find = function(s, pattern, init, plain)
    if not plain then check("string.find", s, pattern) end
    return find(s, pattern, init, plain)
  end
  string.match = function(s, pattern, init)
    check("string.match", s, pattern)
    return match(s, pattern, init)
  end
  string.gmatch = function(s, pattern, init)
    check("string.gmatch", s, pattern)
    return gmatch(s, pattern, init)
  end
  string.gsub = function(s, pattern, repl, n)
    check("string.gsub", s, pattern)
    return gsub(s, pattern, repl, n)
  end
end

local function freeze(t)
  if type(t) ~= "table" then return t end
  local real = {}
  for k, v in raw_pairs(t) do real[k] = freeze(v) end
  return raw_setmetatable({}, {
    __index = real,
    __newindex = function(_, k) error("rules data is read-only (tried to set `" .. tostring(k) .. "`)", 2) end,
    __len = function() return #real end,
    __pairs = function() return spairs(real) end,
    __metatable = false,
  })
end

-- Finalizers and weak tables would let the garbage collector's timing
-- reach the game (and run script code at arbitrary moments): refused.
function setmetatable(t, mt)
  if type(mt) == "table" and (raw_get(mt, "__gc") ~= nil or raw_get(mt, "__mode") ~= nil) then
    error("setmetatable: __gc and __mode are not allowed in rule scripts", 2)
  end
  return raw_setmetatable(t, mt)
end

-- Addresses differ between runs: tostring shows only the type of tables,
-- functions and the like.
local raw_tostring = tostring
function tostring(v)
  local ty = type(v)
  if ty == "table" or ty == "function" or ty == "thread" or ty == "userdata" then
    local mt = getmetatable(v)
    if ty == "table" and type(mt) == "table" and raw_get(mt, "__tostring") then return raw_tostring(v) end
    return ty
  end
  return raw_tostring(v)
end

local function seal(names)
  for _, name in ipairs(names) do _G[name] = freeze(_G[name]) end
  sealed = true
  -- Without raw access the seal below cannot be bypassed.
  local set = rawset
  set(_G, "rawget", nil)
  set(_G, "rawset", nil)
  -- `next` walks tables in hash order, which differs between runs.
  set(_G, "next", nil)
  raw_setmetatable(_G, {
    __newindex = function(_, k)
      error("cannot set global `" .. tostring(k) .. "` during play: scripts keep no state between calls", 2)
    end,
    __index = function(_, k)
      error("undefined global `" .. tostring(k) .. "`", 2)
    end,
    __metatable = false,
  })
end

local function set_loading(name, overrides)
  local set = {}
  for _, o in ipairs(overrides) do set[o] = true end
  loading = { name = name, overrides = set }
end

return { registry = registry, seal = seal, freeze = freeze, set_loading = set_loading }
