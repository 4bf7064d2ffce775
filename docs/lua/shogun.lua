---@meta
-- LuaLS definitions for shogun-lab rule scripts. Point your editor at this
-- folder (scripts/.luarc.json and variants/.luarc.json do) to get
-- completion and checks. A test keeps this file in step with the API the
-- Rust side registers: every `game.*` and `shogun.*` function is here.
-- Seats, provinces, actions, events, specials and regions are 1-based.
-- `game`, `shogun`, `string`, `math` and `table` are read only as
-- `NAME.field` (or `NAME[key]`): a script cannot take one of them as a
-- value (`local g = game` is refused when the file loads), so nothing can
-- write into them, and `game.pay(...)` costs no more than a local would.

---@alias Seat integer
---@alias Province integer
---@alias Pile table<integer|string, integer> # [seat] = cubes, peasants = n

---An effect a card (or RULES.effects) puts in force on a hook.
---@class Effect
---@field hook string the hook it acts on (e.g. tax_yield, action_cost)
---@field modifier string the registered modifier (shogun.modifier) that changes the value
---@field value? number the modifier's parameter
---@field actions? string[] the action ids it applies to (none: every action)

---An action card (cards.yaml `actions`).
---@class ActionCard
---@field id string
---@field name string
---@field handler string the registered action (shogun.action) that performs it
---@field cost? number war chests it costs
---@field params? table the handler's parameters (building, armies)

---An event card (cards.yaml `events`).
---@class EventCard
---@field id string
---@field name string
---@field text string
---@field rice_loss number rice each player loses in winter when it is the year's last event
---@field effects Effect[]

---A special card on the turn-order spaces (cards.yaml `specials`).
---@class SpecialCard
---@field id string
---@field name string
---@field text string
---@field effects Effect[]

---Read-only cards: cards.yaml after the variants' overlays.
---@class Cards
---@field actions ActionCard[]
---@field events EventCard[]
---@field specials SpecialCard[]

---A province of the map.
---@class MapProvince
---@field id string
---@field name string
---@field region integer index into MAP.regions
---@field region_name string
---@field tax integer war chests collecting taxes yields
---@field rice integer rice collecting rice yields
---@field spaces integer building spaces
---@field neighbours Province[] provinces it borders, by land or sea
---@field borders Province[] land borders
---@field sea_routes Province[] sea routes

---Read-only map (maps/NAME.yaml after the variants' overlays).
---@class Map
---@field name string
---@field title string
---@field regions string[]
---@field provinces MapProvince[]
---@field by_name table<string, Province> province index by name

---Read-only rules data: rules.yaml after the variants' overlays (the
---sections are described in docs/variants.md and scripts/base/rules.yaml).
---Variant options are in RULES.params[variant_name].
---@class Rules
---@field name string
---@field description string
---@field players integer[] the player counts the rules allow
---@field seats table[] per seat: name, colour
---@field starting_chests table<string, integer> war chests by player count
---@field army_groups table starting armies by player count
---@field army_groups_used table
---@field components table cubes_per_player, peasants, unrest_markers, buildings, chest_cards
---@field calendar table years, seasons, winter, events_per_year, open_action_cards
---@field bidding table
---@field planning table
---@field draft table
---@field winter table rice_per_province, supply_table
---@field scoring table per_province, per_building, region_majority, tie_step
---@field tower table use (the tower's name), preload
---@field towers table<string, table> the cube towers by name: model, params, provenance
---@field params table<string, any> the rules' parameters, and each variant's options under its name
---@field effects Effect[] effects always in force (variants add here)
---@field modifier_order string[]
---@field handlers table<string, string> phase handlers by phase
---@field limits table
---@field lua string[] the pack's Lua files, in load order
---@field bots table what the pack declares to the bots (docs/bots.md)

---@type Rules
RULES = {}
---@type Cards
CARDS = {}
---@type Map
MAP = {}
---False in bulk runs (bench, lab): skip formatting narration then.
---@type boolean
NARRATE = true

---Iterates a table in sorted key order (numbers before strings). `pairs`
---is this too: Lua's own order differs between runs.
---@generic K, V
---@param t table<K, V>
---@return fun(): K, V
function spairs(t) end

---The keys of a table, sorted.
---@param t table
---@return any[]
function sorted_keys(t) end

---@class shogun
shogun = {}

---Registers an action handler, named by cards.yaml `handler:`.
---@param name string
---@param fn fun(seat: Seat, province: Province, action: integer)
function shogun.action(name, fn) end

---Registers a continuation: receives the answer to a game.ask, the data
---asked with, and the province and action card of the action the question
---was asked in (nil for questions asked outside an action, e.g. in winter).
---@param name string
---@param fn fun(seat: Seat, choice: integer|nil, data: any, province: Province|nil, action: integer|nil)
function shogun.continuation(name, fn) end

---Registers a modifier that card effects name: returns the new value.
---@param name string
---@param fn fun(value: any, effect: table, ctx: table): any
function shogun.modifier(name, fn) end

---Registers a phase handler named in rules.yaml `handlers:` (winter,
---score, year_end, battle).
---@param name string
---@param fn function
function shogun.handler(name, fn) end

---Registers a tower model for `towers: {x: {model: lua, script: name}}`.
---@param name string
---@param fn fun(thrown: Pile, inside: Pile[], random: fun(n: integer): integer): Pile, Pile[]
function shogun.tower(name, fn) end

---Declares hook names that card effects may name.
---@param names string[]
function shogun.hooks(names) end

---Replaces a registered handler by name (a variant changing base rules).
---With `when` (called with the same arguments), `fn` runs only where
---`when` returns true and the replaced function runs elsewhere; the lab
---counts the rule as in play only there.
---@param kind "action"|"continuation"|"modifier"|"handler"|"tower"
---@param name string
---@param fn function
---@param when? function
function shogun.replace(kind, name, fn, when) end

---The function currently registered under a name.
---@param kind "action"|"continuation"|"modifier"|"handler"|"tower"
---@param name string
---@return function|nil
function shogun.original(kind, name) end

---Read-only views of the registered functions by name, as they are now
---(replacements included): `shogun.actions[name]`, `shogun.handlers[name]`,
---`shogun.modifiers[name]` (nil when none is registered). They replace
---`shogun.action_fn`, `handler_fn` and `modifier_fn`, which say so when
---called.
---@type table<string, fun(seat: Seat, province: Province, action: integer)>
shogun.actions = {}
---@type table<string, function>
shogun.handlers = {}
---@type table<string, fun(value: any, effect: table, ctx: table): any>
shogun.modifiers = {}

---What `game.board()` returns: who holds what, read in one call.
---@class Board
---@field provinces integer[] by seat: the provinces it holds
---@field buildings integer[] by seat: the buildings on its provinces
---@field leaders table<string, Seat[]>[] by region, then building kind (every kind): the seats with the most buildings of that kind there, lowest first (empty when nobody has one)

---The host API: the game state lent for one call.
---@class game
game = {}

-- Reading -------------------------------------------------------------

---@return integer
function game.seats() end
---@return integer
function game.year() end
---@return integer
function game.season() end
---@param p Province
---@return Seat|nil
function game.owner(p) end
---A province whole: owner (or nil), armies, unrest markers, buildings
---standing, free building spaces.
---@param p Province
---@return Seat|nil owner, integer armies, integer unrest, integer buildings, integer free
function game.province(p) end
---@param p Province
---@return integer
function game.armies(p) end
---@param p Province
---@return integer
function game.unrest(p) end
---@param p Province
---@return boolean
function game.in_play(p) end
---@param p Province
---@param kind string # a building id: castle, temple, theatre
---@return boolean
function game.has(p, kind) end
---@param p Province
---@return integer
function game.buildings(p) end
---@param p Province
---@return integer
function game.free_spaces(p) end
---A seat whole: war chests, rice, cubes in supply, points, provinces held.
---@param s Seat
---@return integer chests, integer rice, integer supply, integer points, integer provinces
function game.seat(s) end
---Cubes in a seat's supply.
---@param s Seat
---@return integer
function game.supply(s) end
---@param s Seat
---@return integer
function game.chests(s) end
---@param s Seat
---@return integer
function game.rice(s) end
---@param s Seat
---@return integer
function game.points(s) end
---The provinces a seat holds, as several return values.
---@param s Seat
---@return Province ...
function game.provinces_of(s) end
---@param s Seat
---@return integer
function game.province_count(s) end
---The round's event card, if drawn.
---@return integer|nil
function game.event() end
---The year's face-up events not yet used, as several return values.
---@return integer ...
function game.year_events() end
---The special card a seat holds this round.
---@param s Seat
---@return integer|nil
function game.special(s) end
---@return Seat ...
function game.turn_order() end
---@return integer
function game.peasant_supply() end
---@return integer
function game.unrest_supply() end
---The provinces with unrest markers, in order, as several return values.
---@return Province ...
function game.provinces_with_unrest() end
---@param kind string
---@return integer
function game.building_supply(kind) end
---Neighbours of p in play.
---@param p Province
---@return Province ...
function game.targets(p) end
---Neighbours of p in play held by s.
---@param p Province
---@param s Seat
---@return Province ...
function game.own_targets(p, s) end
---Neighbours of p in play not held by s.
---@param p Province
---@param s Seat
---@return Province ...
function game.other_targets(p, s) end
---Where s's armies in p may go: own_targets(p, s), then
---other_targets(p, s), in one call.
---@param p Province
---@param s Seat
---@return Province ...
function game.move_targets(p, s) end
---Buildings of a kind in a region, one count per seat.
---@param region integer
---@param kind string
---@return integer ...
function game.region_buildings(region, kind) end
---Who holds what, for scoring rules: one call reads the whole board.
---A read-only view of the board at this call (call again after a change),
---made only of what every seat sees (owners and buildings).
---```lua
---local board = game.board()
---board.provinces[s]      -- provinces seat s holds (one entry per seat)
---board.buildings[s]      -- buildings on them
---board.leaders[r].castle -- the seats with the most castles in region r,
---                        -- lowest first; {} when nobody has one there
---```
---@return Board
function game.board() end
---The card effects acting on a hook for a seat doing an action now, in
---rules.modifier_order; nil when none. The list is read-only (shared).
---@param hook string
---@param s Seat|nil
---@param action integer|nil
---@return table[]|nil
function game.effects(hook, s, action) end

-- Changing ------------------------------------------------------------

---@param s Seat
---@param n integer
function game.pay(s, n) end
---@param s Seat
---@param n integer
function game.gain(s, n) end
---Adds (or with a negative n removes, never below 0) rice; returns it.
---@param s Seat
---@param n integer
---@return integer
function game.add_rice(s, n) end
---@param s Seat
---@param n integer
function game.set_rice(s, n) end
---@param s Seat
---@param n integer
function game.add_points(s, n) end
---Every seat scores points from one source: `points[s]` is added to seat
---s's points (a list with an entry per seat) and tallied for `shogun lab`
---as `points.SOURCE`. A scoring in one call per source:
---```lua
---game.award("provinces", { 6, 4, 8, 2 })
---```
---@param source string # a metric word (a-z, 0-9, `.`, `_`, `-`)
---@param points integer[]
function game.award(source, points) end
---Supply -> one of the seat's provinces; returns the armies there now.
---@param s Seat
---@param p Province
---@param n integer
---@return integer
function game.deploy(s, p, n) end
---Between two adjacent provinces of the seat.
---@param s Seat
---@param from Province
---@param to Province
---@param n integer
function game.move(s, from, to, n) end
---@param p Province
---@param kind string
function game.build(p, kind) end
---Adds up to n markers (as many as the supply has); returns how many.
---@param p Province
---@param n integer
---@return integer
function game.add_unrest(p, n) end
---Removes n markers (all if nil); returns how many.
---@param p Province
---@param n integer|nil
---@return integer
function game.remove_unrest(p, n) end
---Throws cubes with the tray's into the tower: spec is a list of
---{seat=, n=, from=province or nil for the supply} plus `peasants`, and
---`setup = true` for the setup throw (a tower may treat it apart).
---Returns the tray: [seat] = n, peasants = n.
---@param spec table
---@return Pile
---The province's card leaves seat s's plan (the action planned there is
---lost). Returns how many action spaces it emptied, and how many of them
---held an action still to be carried out this round.
---@param s Seat
---@param p Province
---@return integer emptied
---@return integer pending
function game.void_planned(s, p) end
function game.throw(spec) end
---The same throw with positional groups and no tables: throw_cubes(peasants,
---seat, from, n, seat, from, n, ...), `from` a province or nil for the
---supply. Returns the peasants that landed, then for each group the cubes
---of its seat that landed.
---@param peasants integer
---@param ... integer|nil
---@return integer peasants
---@return integer ...
function game.throw_cubes(peasants, ...) end
---@param s Seat
---@param n integer
function game.tray_to_supply(s, n) end
---@param s Seat
---@param p Province
---@param n integer
function game.tray_to_province(s, p, n) end
---@param n integer|nil
---@return integer
function game.tray_peasants_to_supply(n) end
---The seat takes the province card; the province must be empty of armies.
---@param p Province
---@param s Seat
function game.conquer(p, s) end
---Armies, buildings and unrest back to the supplies, the card to the deck.
---@param p Province
function game.neutralize(p) end
---A battle's throw: records a battle of `kind` (attack, neutral, revolt)
---for `to`, then throws the attacker's `armies` from `from`, every army
---of the defender in `to`, each side's extra cubes from its supply and
---`peasants` from the general supply, with the tray. A side may be nil (a
---neutral province has no defender, a revolt no attacking seat).
---@param kind string
---@param to Province
---@param attacker Seat|nil
---@param from Province|nil
---@param armies integer|nil
---@param attacker_extra integer|nil
---@param defender Seat|nil
---@param defender_extra integer|nil
---@param peasants integer|nil
---@return integer peasants the peasants that landed
---@return integer attacker the attacker's cubes in the tray
---@return integer defender the defender's cubes in the tray
function game.fight(kind, to, attacker, from, armies, attacker_extra, defender, defender_extra, peasants) end
---Where a battle's cubes go once the rules have said who won: each side's
---cubes in the tray go back to its supply but `stay` of them, which go
---into `to`; `to` goes to `holder` (a seat, or nil for neutral; as it
---was, nothing changes); the tray's peasants go back to the general
---supply when `peasants_back` is true.
---@param to Province
---@param holder Seat|nil
---@param attacker Seat|nil
---@param attacker_stay integer|nil
---@param defender Seat|nil
---@param defender_stay integer|nil
---@param peasants_back boolean
function game.settle(to, holder, attacker, attacker_stay, defender, defender_stay, peasants_back) end
---A line of narration in the transcript: string.format's `fmt` and
---arguments, and three conversions of its own: `%S` takes a seat and
---writes its name, `%P` a province and writes its name, `%n` a number and
---a noun ("army/armies", or "peasant" for "peasants") and writes the
---count. Nothing is formatted when nobody reads the transcript (bulk
---runs), so pass numbers and leave the words to it:
---```lua
---game.note("%S moves %n from %P to %P", seat, 3, "army/armies", from, to)
------> "A moves 3 armies from Shinano to Kozuke"
---```
---@param fmt string
---@param ... any
function game.note(fmt, ...) end
---1..n from the scripts' random stream: each call its own draw at this
---stage of the game (a round, a seat's turn at an action, the winter), so an
---extra call shifts no throw, no card and no later stage's draws.
---@param n integer
---@return integer
function game.random(n) end
---Turns up a seat's bid: "chest", value; "province", p; or nil.
---@param s Seat
---@return string|nil kind
---@return integer|nil value
function game.reveal_bid(s) end
---The seats, each once, in the order they choose turn-order spaces.
---@param order Seat[]
function game.set_choosing_order(order) end
---A line of narration in the transcript.
---@param text string
function game.log(text) end
---Records a battle for statistics.
---@param kind string # attack, neutral, revolt
---@param p Province
function game.battle(kind, p) end
---Adds to a statistic that `shogun lab` reports (points by source, battle
---outcomes, skipped actions...): `key` is dotted words (a-z, 0-9, `.`, `_`,
---`-`), `seat` nil for the whole game, `amount` 1 when left out.
---@param key string
---@param seat Seat|nil
---@param amount integer|nil
function game.tally(key, seat, amount) end
---Asks a seat a question: seat, kind, prompt, cont (continuation name),
---data (plain data), and options: provinces = {...}, counts = {min, max},
---pass = true.
---@param spec table
function game.ask(spec) end
---Asks a seat to choose one of the provinces given after `pass`, or to
---pass when `pass` is true: `game.ask` without a table.
---@param seat Seat
---@param kind string
---@param prompt string
---@param cont string # a shogun.continuation
---@param data any # plain data for the continuation
---@param pass boolean
---@param ... Province
function game.ask_province(seat, kind, prompt, cont, data, pass, ...) end
---Asks a seat for a number from `min` to `max`: `game.ask` without a table.
---@param seat Seat
---@param kind string
---@param prompt string
---@param cont string # a shogun.continuation
---@param data any # plain data for the continuation
---@param min integer
---@param max integer
function game.ask_count(seat, kind, prompt, cont, data, min, max) end

-- The base pack's helpers (scripts/base/lib.lua, battle.lua): globals every
-- file of the pack and of a variant may call.

---The seat's name ("A").
---@param s Seat
---@return string
function seat_name(s) end

---The province's name.
---@param p Province
---@return string
function pname(p) end

---"1 army", "2 armies": a count with its noun in the right number.
---@param n integer
---@param singular string
---@param plural? string defaults to the singular with an "s"
---@return string
function count(n, singular, plural) end

---Passes `value` through every effect in force on `hook` for `seat`
---doing `action` in `province` (game.effects: event, then special, then
---RULES.effects, in RULES.modifier_order, filtered by the effects'
---`actions`) and returns what comes out. Each modifier gets the context
---`{seat=, province=, action=, target=}`, made only when an effect acts.
---@param hook string
---@param value any
---@param seat Seat
---@param province? Province
---@param action? integer
---@param target? Province the province attacked (can_attack)
---@return any
function modify(hook, value, seat, province, action, target) end

---Skips an action that cannot be performed in full: tallies
---`skipped.REASON` for the lab and narrates `why`.
---@param seat Seat
---@param p Province
---@param why string
---@param reason? string a short word (default "other")
function skip(seat, p, why, reason) end

---The battle rule registered under rules.yaml `handlers.battle`.
---@param kind string attack, neutral or revolt
---@param a integer attacking cubes counted
---@param d integer defending cubes counted
---@param p integer peasants counted
---@param unrest boolean the province has unrest (peasants take no side)
---@return string outcome attacker, defender or tie
---@return integer attackers_left
---@return integer defenders_left
function battle_outcome(kind, a, d, p, unrest) end

---What becomes of a province's planned action when its owner loses it
---(rules.yaml `handlers.province_lost`).
---@param seat Seat
---@param p Province
---@param to Seat|nil the winner, or nil when it became neutral
function province_lost(seat, p, to) end

---`seat` attacks `to`, held by `defender`, with `n` armies from `from`.
---@param seat Seat
---@param defender Seat
---@param from Province
---@param to Province
---@param n integer
---@param action integer
function attack(seat, defender, from, to, n, action) end

---`seat` enters the neutral province `to` with `n` armies from `from`.
---@param seat Seat
---@param from Province
---@param to Province
---@param n integer
---@param action integer
function neutral_battle(seat, from, to, n, action) end

---Peasants rise in `p` against its owner. True if he holds it.
---@param seat Seat
---@param p Province
---@param peasants integer
---@param why string for the narration
---@return boolean
function revolt(seat, p, peasants, why) end
