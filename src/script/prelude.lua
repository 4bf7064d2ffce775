-- The runtime's own Lua, loaded before any pack: the registration API and
-- helpers every pack may use. It holds no rules.
local registry = { actions = {}, continuations = {}, modifiers = {}, handlers = {}, hooks = {}, towers = {} }
local sealed = false
-- Who registered (or last replaced) each name: "base" or a variant's name.
local owner = { actions = {}, continuations = {}, modifiers = {}, handlers = {}, towers = {} }
-- Names a variant registered with shogun.replace (the rest it added).
local replaced = { actions = {}, continuations = {}, modifiers = {}, handlers = {}, towers = {} }
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

-- Replacements that apply only where their `when` holds: kind -> name ->
-- { when, fn, previous }.
local guarded = { actions = {}, continuations = {}, modifiers = {}, handlers = {}, towers = {} }

-- Replaces a registered handler by name: shogun.replace("action",
-- "collect_taxes", fn). Two variants replacing the same name is an error
-- unless the later one lists the earlier under `overrides:`. With `when`
-- (a function of the same arguments), `fn` runs only where `when(...)` is
-- true and the function it replaces runs elsewhere: a rule that changes
-- only some situations says which, and the lab counts it only there.
function shogun.replace(what, name, fn, when)
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
  if when ~= nil and type(when) ~= "function" then
    error("shogun.replace('" .. name .. "'): `when` must be a function, got " .. type(when), 2)
  end
  local before = registry[kind][name]
  registry[kind][name] = fn
  guarded[kind][name] = nil
  if when ~= nil then
    registry[kind][name] = function(...)
      if when(...) then return fn(...) end
      return before(...)
    end
    guarded[kind][name] = { when = when, fn = fn, previous = before }
  end
  owner[kind][name] = loading.name
  replaced[kind][name] = true
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

-- Names an earlier version of the API had, and what replaced them: a pack
-- that still uses one gets this message instead of "attempt to call a
-- nil value".
local removed = {
  action_fn = "shogun.actions[name]", handler_fn = "shogun.handlers[name]", modifier_fn = "shogun.modifiers[name]",
}
setmetatable(shogun, {
  __index = function(_, k)
    if removed[k] then error("shogun." .. k .. " was removed: use " .. removed[k], 2) end
  end,
  __newindex = function(_, k) error("shogun is read-only (tried to set `" .. tostring(k) .. "`)", 2) end,
  __metatable = false,
})

local raw_pairs, raw_next, raw_set, raw_get = pairs, next, rawset, rawget
local raw_setmetatable, raw_type, raw_select = setmetatable, type, select
local raw_format, raw_find = string.format, string.find
local string_lib = string
local G = _G
-- The raw metatable of a table (ignoring __metatable); set when the
-- runtime locks the builtins.
local raw_getmt
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

-- A key only the runtime holds: it marks the metatables of read-only tables.
local FROZEN = {}

local function read_only(_, k)
  error("rules data is read-only (tried to set `" .. tostring(k) .. "`)", 2)
end

-- The metatable of a read-only table whose contents live in `real`.
local function frozen_mt(real, newindex)
  local mt = {
    __index = real,
    __newindex = newindex or read_only,
    __len = function() return #real end,
    __pairs = function() return spairs(real) end,
    __metatable = false,
  }
  mt[FROZEN] = real
  return mt
end

-- Read-only views of the registered functions by name, as they are now
-- (replacements included): `shogun.actions[name]` is
-- `shogun.action_fn(name)`, likewise `shogun.handlers` and
-- `shogun.modifiers`. One table read instead of a call, for packs that
-- look a function up on every action.
for _, names in ipairs({ { "actions", "action" }, { "handlers", "handler" }, { "modifiers", "modifier" } }) do
  local view, kind = names[1], names[2]
  raw_set(shogun, view, raw_setmetatable({}, frozen_mt(registry[view], function(_, k)
    error("shogun." .. view .. " is read-only (tried to set `" .. tostring(k) .. "`): register with shogun." .. kind
      .. " or shogun.replace", 2)
  end)))
end

-- A read-only deep copy of plain data (RULES, CARDS, MAP, card effects).
local function freeze(t)
  if type(t) ~= "table" then return t end
  local real = {}
  for k, v in raw_next, t do real[k] = freeze(v) end
  return raw_setmetatable({}, frozen_mt(real))
end

-- The lab's rule use of values: the values a variant changed (RULES, CARDS,
-- MAP and the card effects as its overlays left them, against the pack's
-- own) sit in read-only tables that count the reads of those keys only,
-- each as the part at its path (`RULES.scoring.region_majority.castle`);
-- every other table reads as `freeze` makes it (no cost). `bump_value(i)`
-- is the host's counter.
local value_parts, value_index = {}, {}
local bump_value = function() end
-- `base` for a table the variants added whole, reached apart from its
-- parent (a card effect from game.effects): every read of it counts.
local NEW = {}
local num_string = tostring
-- Descriptive text, which no rule acts on: a change to it is not counted.
local DISPLAY = { name = true, text = true, title = true, description = true, provenance = true }

local function value_part(path, replaced)
  local i = value_index[path]
  if i == nil then
    i = #value_parts + 1
    value_index[path] = i
    value_parts[i] = { path, replaced }
  end
  return i
end

local function key_path(path, k)
  if raw_type(k) == "number" then return path .. "[" .. num_string(k) .. "]" end
  return path .. "." .. num_string(k)
end

local function counted_pairs(real, counted)
  local keys, n = sorted_keys(real), 0
  return function()
    n = n + 1
    local k = keys[n]
    if k ~= nil then
      local i = counted[k]
      if i ~= nil then bump_value(i) end
      return k, real[k]
    end
  end
end

local function counted_mt(real, counted)
  local mt = frozen_mt(real)
  mt.__index = function(_, k)
    local i = counted[k]
    if i ~= nil then bump_value(i) end
    return real[k]
  end
  mt.__pairs = function() return counted_pairs(real, counted) end
  return mt
end

-- `freeze(t)`, counting the reads of what differs from `base` (the same
-- data before the variants) down to the leaves: a changed or added key
-- counts at its path, a removed one too (it reads nil). `skip`: paths not
-- to count (a variant's own options, for its scripts).
local function freeze_diff(t, base, path, skip)
  if raw_type(t) ~= "table" then return t end
  local real, counted, any = {}, {}, false
  if base == NEW then
    local i = value_part(path, false)
    for k, v in raw_next, t do
      real[k] = freeze(v)
      counted[k] = i
    end
    return raw_setmetatable({}, counted_mt(real, counted))
  end
  -- In key order: the parts are numbered as they are met, the same in
  -- every VM.
  for _, k in ipairs(sorted_keys(t)) do
    local v, b, kp = t[k], base[k], key_path(path, k)
    if raw_type(v) == "table" and raw_type(b) == "table" then
      real[k] = freeze_diff(v, b, kp, skip)
    else
      real[k] = freeze(v)
      if v ~= b and not skip[kp] and not DISPLAY[k] then
        counted[k] = value_part(kp, b ~= nil)
        any = true
      end
    end
  end
  for _, k in ipairs(sorted_keys(base)) do
    if t[k] == nil and not DISPLAY[k] then
      counted[k] = value_part(key_path(path, k), true)
      any = true
    end
  end
  return raw_setmetatable({}, any and counted_mt(real, counted) or frozen_mt(real))
end

-- `freeze(t)` when `base` is nil, else `freeze_diff`; `base` may be the
-- string "new" (see NEW).
local function freeze_changes(t, base, path, skip)
  if base == nil then return freeze(t) end
  return freeze_diff(t, base == "new" and NEW or base, path, skip or {})
end

local function set_value_bump(bump)
  bump_value = bump
end

-- The value parts so far, as { path, replaced } in the order of their
-- counters.
local function value_list()
  return value_parts
end

-- Finalizers and weak tables would let the garbage collector's timing
-- reach the game (and run script code at arbitrary moments): refused. The
-- table gets a copy of `mt`, so changing `mt` later (adding `__mode`, say)
-- changes nothing; getmetatable(t) still returns `mt`.
function setmetatable(t, mt)
  if raw_type(mt) ~= "table" then return raw_setmetatable(t, mt) end
  local copy = {}
  for k, v in raw_next, mt do copy[k] = v end
  if copy.__gc ~= nil or copy.__mode ~= nil then
    error("setmetatable: __gc and __mode are not allowed in rule scripts", 2)
  end
  if copy.__metatable == nil then copy.__metatable = mt end
  return raw_setmetatable(t, copy)
end

-- Addresses differ between runs: tostring shows only the type of tables,
-- functions and the like.
local raw_tostring = tostring
function tostring(v)
  local ty = type(v)
  if ty == "table" or ty == "function" or ty == "thread" or ty == "userdata" then
    -- Only a __tostring the table really has (not one added later to the
    -- metatable it was given) may turn it into text.
    local mt = ty == "table" and raw_getmt and raw_getmt(v)
    if mt and raw_get(mt, "__tostring") ~= nil then return raw_tostring(v) end
    return ty
  end
  return raw_tostring(v)
end
local script_tostring = tostring

-- string.format for a call with an argument that is a table, function,
-- thread or userdata: each such argument is shown as tostring shows it
-- (no address). Scripts' `string.format` is the runtime's C function
-- (script/mod.rs, `format_for_scripts`): it refuses `%p` and sends only
-- such calls here.
local function format_shown(fmt, ...)
  local n = raw_select("#", ...)
  local args = { ... }
  for i = 1, n do
    local ty = raw_type(args[i])
    if ty == "table" or ty == "function" or ty == "thread" or ty == "userdata" then args[i] = script_tostring(args[i]) end
  end
  return raw_format(fmt, table.unpack(args, 1, n))
end

-- The text of game.note(fmt, ...) (the host calls this only when somebody
-- reads the narration): string.format's `fmt` and arguments, and three
-- conversions of its own: `%S` takes a seat and writes its name, `%P` a
-- province and writes its name, `%n` a number and a noun ("army/armies",
-- or "peasant" for "peasants") and writes the count.
local function note_format(fmt, ...)
  if raw_type(fmt) ~= "string" then error("game.note: argument 1 must be a string, got " .. raw_type(fmt), 2) end
  local args, out, plain = { ... }, {}, {}
  local i, k, from = 0, 0, 1
  while true do
    local at = raw_find(fmt, "%", from, true)
    if at == nil then break end
    local stop = at + 1
    while raw_find("-+ #0123456789.", fmt:sub(stop, stop), 1, true) and stop <= #fmt do stop = stop + 1 end
    local c = fmt:sub(stop, stop)
    plain[#plain + 1] = fmt:sub(from, at - 1)
    if c == "%" then
      plain[#plain + 1] = "%%"
    else
      i, k = i + 1, k + 1
      local spec, v = fmt:sub(at, stop - 1), args[i]
      if c == "S" then
        local seat = RULES.seats[v]
        plain[#plain + 1], out[k] = spec .. "s", seat and seat.name
      elseif c == "P" then
        local province = MAP.provinces[v]
        plain[#plain + 1], out[k] = spec .. "s", province and province.name
      elseif c == "n" then
        local noun = args[i + 1]
        if raw_type(noun) ~= "string" then error("game.note: %n needs a number and a noun, got " .. raw_type(noun), 2) end
        local slash = raw_find(noun, "/", 1, true)
        local one, many = noun, noun .. "s"
        if slash then one, many = noun:sub(1, slash - 1), noun:sub(slash + 1) end
        plain[#plain + 1], out[k] = spec .. "s", raw_format("%d %s", v, v == 1 and one or many)
        i = i + 1
      else
        plain[#plain + 1], out[k] = spec .. c, args[i]
      end
    end
    from = stop + 1
  end
  plain[#plain + 1] = fmt:sub(from)
  return string.format(table.concat(plain), table.unpack(out, 1, k))
end

-- The string metatable (`("x"):rep(2)`) is not the scripts' to change.
local string_mt = getmetatable("")
string_mt.__metatable = false

-- The runtime's own tables: changed only by its functions, which refuse
-- once the pack is sealed. Locking walks their contents, not them.
local internal = { registry, owner, replaced, guarded }
for _, t in ipairs({ registry, owner, replaced, guarded }) do
  for _, sub in raw_next, t do internal[#internal + 1] = sub end
end

local function is_callable(v)
  local ty = raw_type(v)
  return ty == "table" or ty == "function"
end

-- Makes `t` read-only in place (so every reference to it sees that):
-- its contents move to a hidden table the metatable reads through, and
-- everything it reaches (values, keys, metatable contents, the upvalues of
-- functions) is locked the same way. Returns the hidden table.
local lock_value
local function lock_table(t, ctx, newindex)
  if ctx.seen[t] then return ctx.reals[t] end
  ctx.seen[t] = true
  local mt = ctx.getmt(t)
  if mt ~= nil and raw_get(mt, FROZEN) then
    ctx.reals[t] = raw_get(mt, FROZEN)
    return ctx.reals[t]
  end
  local real = {}
  for k, v in raw_next, t do real[k] = v end
  for k in raw_next, real do raw_set(t, k, nil) end
  ctx.reals[t] = real
  local m = frozen_mt(real, newindex)
  if mt ~= nil then
    -- Keep the table's behaviour (operators, calls, __tostring, lookups
    -- that fall through to a class table).
    for k, v in raw_next, mt do
      if k ~= "__index" and k ~= "__newindex" and k ~= "__metatable" then m[k] = v end
      if is_callable(v) then lock_value(v, ctx) end
    end
    local index = raw_get(mt, "__index")
    if index ~= nil then raw_setmetatable(real, { __index = index }) end
  end
  ctx.setmt(t, m)
  for k, v in raw_next, real do
    if is_callable(k) then lock_value(k, ctx) end
    if is_callable(v) then lock_value(v, ctx) end
  end
  return real
end

function lock_value(v, ctx)
  if raw_type(v) == "table" then
    lock_table(v, ctx)
  elseif raw_type(v) == "function" and not ctx.seen[v] then
    ctx.seen[v] = true
    local i = 1
    while true do
      local ok, up = ctx.upvalue(v, i)
      if not ok then break end
      if is_callable(up) then lock_value(up, ctx) end
      i = i + 1
    end
  end
end

local globals -- the hidden table holding every global once locked
-- Every table and function the builtins reach (set when they are locked):
-- their state is the runtime's own.
local builtin

-- The globals that are flat tables of functions (`game`, `shogun`, the
-- libraries: script/bytecode.rs FLAT, set by the host). No script can take
-- one as a value (the bytecode check refuses `game` anywhere but in
-- `game.name`), so none can write into it: they stay plain tables, and
-- reading `game.pay` is a raw hit instead of a step through a metatable.
-- Their contents are locked like everything else; a new key is refused
-- here too.
local flat_names = {}
local function set_flat(names)
  for i, name in ipairs(names) do flat_names[i] = name end
end

local function lock_flat(ctx, source)
  for _, name in ipairs(flat_names) do
    local t = raw_get(source, name)
    if raw_type(t) == "table" and not ctx.seen[t] then
      ctx.seen[t] = true
      for _, v in raw_next, t do
        if is_callable(v) then lock_value(v, ctx) end
      end
      if ctx.getmt(t) == nil then
        ctx.setmt(t, {
          __newindex = function(_, k) error(name .. " is read-only (tried to set `" .. tostring(k) .. "`)", 2) end,
          __metatable = false,
        })
      end
    end
  end
end

local function lock_context(upvalue, getmt, setmt, source)
  local ctx = { seen = {}, reals = {}, upvalue = upvalue, getmt = getmt, setmt = setmt }
  -- The globals table is locked by its own rules (below).
  ctx.seen[G] = true
  if globals then ctx.seen[globals] = true end
  for _, t in ipairs(internal) do ctx.seen[t] = true end
  lock_flat(ctx, source)
  for _, t in ipairs(internal) do
    for _, v in raw_next, t do
      if is_callable(v) then lock_value(v, ctx) end
    end
  end
  return ctx
end

local function global_error(_, k)
  error("undefined global `" .. tostring(k) .. "`", 2)
end

-- Before the pack's files load: the host API, the libraries, RULES, CARDS,
-- MAP and every global defined so far become read-only; files may add
-- globals (functions shared between files) but not replace these. The raw
-- accessors, which would bypass all of it, and `next` (hash order differs
-- between runs) are gone.
local function lock_builtins(upvalue, getmt, setmt)
  raw_getmt = getmt
  for _, name in ipairs({ "rawget", "rawset", "rawequal", "rawlen", "next", "_G" }) do raw_set(G, name, nil) end
  local ctx = lock_context(upvalue, getmt, setmt, G)
  globals = {}
  ctx.seen[globals] = true
  for k, v in raw_next, G do globals[k] = v end
  for k in raw_next, globals do raw_set(G, k, nil) end
  raw_setmetatable(globals, { __index = global_error })
  raw_setmetatable(G, {
    __index = globals,
    __newindex = function(t, k, v)
      if raw_get(globals, k) ~= nil then
        error("`" .. tostring(k) .. "` is built in and read-only (variants replace rules with shogun.replace)", 2)
      end
      raw_set(t, k, v)
    end,
    __metatable = false,
  })
  for _, v in raw_next, globals do
    if is_callable(v) then lock_value(v, ctx) end
  end
  string_mt.__index = string_lib
  builtin = ctx.seen
  builtin[bump_value] = true
  builtin[(ipairs({}))] = true -- ipairs' iterator: stateless, made by every call
end

-- What would carry state from one call to the next once the pack's files
-- have loaded, although no script assigns a captured variable (the
-- bytecode check refuses that): a function made while loading that keeps
-- its own state (an iterator of `pairs` or `string.gmatch` kept in a
-- file-level local or a table). Walks everything the globals and the
-- registered functions reach; `describe(f)` (the host's) says whether a
-- function not built in keeps state and where a function was defined.
-- Returns a list of { place, what } (place: "file:line" or "").
-- The keys of `t` in an order every run keeps where keys have one:
-- numbers, then strings, each sorted; then the others (tables, functions,
-- booleans) as `raw_next` meets them.
local function defined_keys(t)
  local keys, others = {}, {}
  for k in raw_next, t do
    local tk = raw_type(k)
    if tk == "number" or tk == "string" then keys[#keys + 1] = k else others[#others + 1] = k end
  end
  table.sort(keys, key_less)
  for i = 1, #others do keys[#keys + 1] = others[i] end
  return keys
end

-- Walks in `defined_keys` order, so that a value reached from several
-- places (one iterator given to six globals) is named by the same place
-- on every run: Lua's own order follows string hashes, which change
-- between runs.
local function stateful_values(upvalue, getmt, describe)
  local found, seen = {}, {}
  local function walk(v, where, place)
    if seen[v] or builtin[v] then return end
    seen[v] = true
    if raw_type(v) == "function" then
      local keeps, defined = describe(v)
      if keeps then found[#found + 1] = { place, where .. " holds " .. keeps } end
      local i = 1
      while true do
        local ok, up, name = upvalue(v, i)
        if not ok then break end
        if is_callable(up) then
          walk(up, "`" .. tostring(name) .. "` (a local the function at " .. (defined or "?") .. " uses)", defined or place)
        end
        i = i + 1
      end
    else
      local mt = getmt(v)
      local contents = v
      if mt ~= nil and raw_get(mt, FROZEN) then contents = raw_get(mt, FROZEN) end
      if mt ~= nil then walk(mt, where, place) end
      for _, k in ipairs(defined_keys(contents)) do
        local x = raw_get(contents, k)
        if is_callable(k) then walk(k, where, place) end
        if is_callable(x) then walk(x, where, place) end
      end
    end
  end
  for _, k in ipairs(defined_keys(G)) do
    local v = raw_get(G, k)
    if is_callable(v) then walk(v, "the global `" .. tostring(k) .. "`", "") end
  end
  for _, t in ipairs(internal) do
    for _, k in ipairs(defined_keys(t)) do
      local v = raw_get(t, k)
      if raw_type(v) == "function" then walk(v, "the registered `" .. tostring(k) .. "`", "") end
    end
  end
  return found
end

-- After the pack's files load: nothing a script can reach stays writable.
-- Tables reachable from the globals or from the upvalues of any function
-- (file-level locals) are locked in place. The globals themselves go back
-- into the globals table, unlocked so that reading one costs nothing: no
-- script can reach that table as a value (`_G` is gone, and the bytecode
-- check in script/bytecode.rs refuses `_ENV` as a value and global writes
-- outside a file's top level).
local function seal(upvalue, getmt, setmt)
  sealed = true
  local ctx = lock_context(upvalue, getmt, setmt, globals)
  for k, v in raw_next, globals do raw_set(G, k, v) end
  setmt(G, {
    __index = global_error,
    __newindex = function(_, k)
      error("cannot set global `" .. tostring(k) .. "` during play: scripts keep no state between calls", 2)
    end,
    __metatable = false,
  })
  for _, v in raw_next, G do
    if is_callable(v) then lock_value(v, ctx) end
  end
end

-- The lab's rule use: wraps every function a variant added or replaced so
-- that each call first calls `bump(i)` (a host function that counts while
-- the host says so), and returns them as {kind, name, variant, replaced}
-- in a fixed order. Called once, after the files load and before the host
-- resolves any name; base functions stay as they are (no cost).
local function count_calls(bump)
  local parts = {}
  for _, kind in ipairs({ "actions", "continuations", "handlers", "modifiers", "towers" }) do
    for _, name in ipairs(sorted_keys(owner[kind])) do
      local who, fn = owner[kind][name], registry[kind][name]
      if who ~= "base" then
        local i, g = #parts + 1, guarded[kind][name]
        parts[i] = { kind, name, who, replaced[kind][name] == true }
        if g then
          local when, own, previous = g.when, g.fn, g.previous
          registry[kind][name] = function(...)
            if when(...) then
              bump(i)
              return own(...)
            end
            return previous(...)
          end
        else
          registry[kind][name] = function(...)
            bump(i)
            return fn(...)
          end
        end
      end
    end
  end
  return parts
end

-- What each function the pack registered or made global keeps from its
-- files' loading, as text: the plain values its upvalues reach (tables in
-- key order; the builtins, the globals table and read-only data left out:
-- reads of that data are counted where they happen). Two loads of the same
-- files whose texts differ for a function: it keeps a value that differs
-- between them. A global table gets its own entry (`table/NAME`).
local function fingerprints(upvalue, getmt)
  local function print_of(root)
    local out, seen, n = {}, {}, 0
    local function walk(v)
      local ty = raw_type(v)
      if ty == "userdata" or ty == "thread" then
        out[#out + 1] = ty
        return
      elseif ty ~= "table" and ty ~= "function" then
        out[#out + 1] = ty .. ":" .. num_string(v)
        return
      elseif builtin[v] then
        out[#out + 1] = "b"
        return
      elseif seen[v] then
        out[#out + 1] = "@" .. seen[v]
        return
      end
      n = n + 1
      seen[v] = n
      if ty == "function" then
        out[#out + 1] = "f("
        local i = 1
        while true do
          local ok, up = upvalue(v, i)
          if not ok then break end
          walk(up)
          i = i + 1
        end
      else
        local mt = getmt(v)
        if mt ~= nil and raw_get(mt, FROZEN) then
          out[#out + 1] = "r"
          return
        end
        out[#out + 1] = "{"
        local keys, other = {}, 0
        for k in raw_next, v do
          local tk = raw_type(k)
          if tk == "string" or tk == "number" then keys[#keys + 1] = k else other = other + 1 end
        end
        table.sort(keys, key_less)
        for _, k in ipairs(keys) do
          walk(k)
          walk(v[k])
        end
        out[#out + 1] = "+" .. other
      end
      out[#out + 1] = ")"
    end
    walk(root)
    return table.concat(out, " ")
  end
  local prints = {}
  for _, kind in ipairs({ "actions", "continuations", "handlers", "modifiers", "towers" }) do
    for name, fn in raw_next, registry[kind] do prints[kind .. "/" .. name] = print_of(fn) end
  end
  for name, v in raw_next, G do
    if raw_type(name) == "string" and not builtin[v] then
      if raw_type(v) == "function" then
        prints["global/" .. name] = print_of(v)
      elseif raw_type(v) == "table" then
        prints["table/" .. name] = print_of(v)
      end
    end
  end
  return prints
end

-- Wraps the registered or global functions named `kind/name` in `keys` so
-- that each call first counts a read of every value part in `parts`: the
-- functions keep values read while the files loaded (see fingerprints).
-- Called after count_calls, before the seal.
local function count_kept(keys, parts)
  local function wrap(fn)
    return function(...)
      for j = 1, #parts do bump_value(parts[j]) end
      return fn(...)
    end
  end
  for _, key in ipairs(keys) do
    local at = raw_find(key, "/", 1, true)
    local kind, name = key:sub(1, at - 1), key:sub(at + 1)
    if kind == "global" then
      raw_set(G, name, wrap(raw_get(G, name)))
    elseif registry[kind] ~= nil and registry[kind][name] ~= nil then
      registry[kind][name] = wrap(registry[kind][name])
    end
  end
end

local function set_loading(name, overrides)
  local set = {}
  for _, o in ipairs(overrides) do set[o] = true end
  loading = { name = name, overrides = set }
end

-- A read-only view of `t`, which only the host writes (`what` names it
-- in the error of a script that tries).
local function host_view(t, what)
  return raw_setmetatable({}, {
    __index = t,
    __newindex = function(_, k) error(what .. " (tried to set `" .. tostring(k) .. "`)", 2) end,
    __len = function() return #t end,
    __pairs = function() return spairs(t) end,
    __metatable = false,
  })
end

-- A read-only list whose items stay as they are (the host shares the
-- effect lists of game.effects between calls).
local function readonly_list(t)
  return host_view(t, "effect lists are read-only")
end

return { raw_format = raw_format, script_format = format_shown, registry = registry, seal = seal, lock_builtins = lock_builtins, freeze = freeze, set_loading = set_loading,
  readonly_list = readonly_list, host_view = host_view, stateful_values = stateful_values, count_calls = count_calls,
  freeze_changes = freeze_changes, set_value_bump = set_value_bump, value_list = value_list, fingerprints = fingerprints,
  count_kept = count_kept, set_flat = set_flat, note_format = note_format }
