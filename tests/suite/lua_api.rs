//! The documented Lua API (docs/lua/shogun.lua, docs/lua-api.md) matches
//! what the runtime really registers.

use std::collections::BTreeSet;

fn registered(table: &str) -> BTreeSet<String> {
    crate::common::engine().runtime().functions_of(table).into_iter().collect()
}

fn declared(prefix: &str) -> BTreeSet<String> {
    let stub = std::fs::read_to_string(crate::common::root().join("docs/lua/shogun.lua")).unwrap();
    stub.lines().filter_map(|l| l.strip_prefix(&format!("function {prefix}."))).map(|l| l.split('(').next().unwrap().to_string()).collect()
}

#[test]
fn stubs_match_the_host_api() {
    let (got, want) = (registered("game"), declared("game"));
    assert_eq!(got, want, "game.*: registered vs docs/lua/shogun.lua");
}

#[test]
fn stubs_match_the_registration_api() {
    let (got, want) = (registered("shogun"), declared("shogun"));
    assert_eq!(got, want, "shogun.*: registered vs docs/lua/shogun.lua");
}

#[test]
fn the_api_doc_mentions_every_function() {
    let doc = std::fs::read_to_string(crate::common::root().join("docs/lua-api.md")).unwrap();
    for f in registered("game") {
        assert!(doc.contains(&format!("game.{f}")), "docs/lua-api.md does not mention game.{f}");
    }
    for f in registered("shogun") {
        assert!(doc.contains(&format!("shogun.{f}")), "docs/lua-api.md does not mention shogun.{f}");
    }
}

#[test]
fn move_targets_are_own_targets_then_other_targets() {
    let engine = crate::common::engine();
    for players in [3, 4, 5] {
        let st = crate::common::started(&engine, players, 1);
        // Every province and seat; counts how often each part is not empty.
        let code = "local own, other = 0, 0
for p = 1, #MAP.provinces do
  for s = 1, game.seats() do
    local want = { game.own_targets(p, s) }
    if #want > 0 then own = own + 1 end
    local others = { game.other_targets(p, s) }
    if #others > 0 then other = other + 1 end
    for _, q in ipairs(others) do want[#want + 1] = q end
    local got = table.concat({ game.move_targets(p, s) }, ',')
    if got ~= table.concat(want, ',') then error(p .. '/' .. s .. ': ' .. got .. ' against ' .. table.concat(want, ',')) end
  end
end
return own .. ' ' .. other";
        let counts = engine.runtime().eval_readonly(&st, code).unwrap();
        let (own, other) = counts.split_once(' ').unwrap();
        assert!(own.parse::<u32>().unwrap() > 0 && other.parse::<u32>().unwrap() > 0, "{players} players: {counts}");
    }
    let st = crate::common::started(&engine, 4, 1);
    for (code, want) in
        [("game.move_targets(99, 1)", "game.move_targets: province 99 does not exist"), ("game.move_targets(1)", "game.move_targets: argument 2")]
    {
        let err = engine.runtime().eval_readonly(&st, code).unwrap_err();
        assert!(err.message.contains(want), "{code}: {err}");
    }
}

/// `game.province(p)` and `game.seat(s)` read a province or a seat whole
/// in one call: each value is what the single read gives, on positions
/// with buildings, unrest and varied supplies; `game.provinces_with_unrest`
/// lists exactly the provinces whose `game.unrest` is above 0, in order.
#[test]
fn whole_province_and_seat_reads_agree_with_the_single_reads() {
    let engine = crate::common::engine();
    let mut with_unrest = 0;
    for (players, salt) in [(3, 3), (4, 1), (5, 5)] {
        let mut st = built(&engine, players, salt);
        for (i, p) in st.provinces.iter_mut().enumerate() {
            p.unrest = ((i + salt) % 3) as u16;
        }
        for (i, pl) in st.players.iter_mut().enumerate() {
            pl.chests += i as i64;
            pl.rice = (i * 2 + salt) as i64;
            pl.points = (i * 7) as i64;
        }
        let code = "local n = 0
for p = 1, #MAP.provinces do
  local owner, armies, unrest, buildings, free = game.province(p)
  local want = { game.owner(p) or 0, game.armies(p), game.unrest(p), game.buildings(p), game.free_spaces(p) }
  local got = { owner or 0, armies, unrest, buildings, free }
  if table.concat(got, ',') ~= table.concat(want, ',') then error('province ' .. p .. ': ' .. table.concat(got, ',')) end
end
for s = 1, game.seats() do
  local got = { game.seat(s) }
  local want = { game.chests(s), game.rice(s), game.supply(s), game.points(s), game.province_count(s) }
  if #got ~= 5 or table.concat(got, ',') ~= table.concat(want, ',') then error('seat ' .. s .. ': ' .. table.concat(got, ',')) end
end
local listed = {}
for p = 1, #MAP.provinces do if game.unrest(p) > 0 then listed[#listed + 1] = p end end
if table.concat({ game.provinces_with_unrest() }, ',') ~= table.concat(listed, ',') then error('unrest') end
return #listed";
        let n = engine.runtime().eval_readonly(&st, code).unwrap_or_else(|e| panic!("{players} players: {e}"));
        with_unrest += n.parse::<u32>().unwrap();
    }
    assert!(with_unrest > 0);
    let st = crate::common::started(&engine, 4, 1);
    for (code, want) in [("game.province(99)", "game.province: province 99 does not exist"), ("game.seat(9)", "game.seat: seat 9")] {
        let err = engine.runtime().eval_readonly(&st, code).unwrap_err();
        assert!(err.message.contains(want), "{code}: {err}");
    }
}

#[test]
fn the_registry_views_are_the_registered_functions_and_read_only() {
    let engine = crate::common::engine();
    let st = crate::common::started(&engine, 4, 1);
    let rt = engine.runtime();
    let same = "return shogun.actions.build == shogun.original('action', 'build') and shogun.actions.deploy == shogun.original('action', 'deploy')
  and shogun.handlers.score == shogun.original('handler', 'score') and shogun.modifiers.add == shogun.original('modifier', 'add')
  and shogun.actions.nothing == nil and #sorted_keys(shogun.handlers) > 0";
    assert_eq!(rt.eval_readonly(&st, same).unwrap(), "true");
    // The names the views replaced say so.
    for (code, want) in [
        ("return shogun.action_fn('build')", "shogun.action_fn was removed: use shogun.actions[name]"),
        ("return shogun.handler_fn('score')", "shogun.handler_fn was removed: use shogun.handlers[name]"),
        ("return shogun.modifier_fn('add')", "shogun.modifier_fn was removed: use shogun.modifiers[name]"),
    ] {
        let err = rt.eval_readonly(&st, code).unwrap_err();
        assert!(err.message.contains(want), "{code}: {err}");
    }
    for (code, want) in [
        ("shogun.actions.build = nil", "shogun.actions is read-only (tried to set `build`)"),
        ("shogun.handlers.score = tostring", "shogun.handlers is read-only"),
        ("shogun.modifiers.add = function(v) return v end", "shogun.modifiers is read-only"),
        ("shogun.actions = {}", "read-only"),
    ] {
        let err = rt.eval_readonly(&st, code).unwrap_err();
        assert!(err.message.contains(want), "{code}: {err}");
    }
}

/// The board as `game.board()` shows it, as text: each seat's provinces
/// and buildings, then each region's leaders of each kind.
const SHOW_BOARD: &str = "local b, out = game.board(), {}
for s = 1, #b.provinces do out[#out + 1] = s .. ':' .. b.provinces[s] .. '/' .. b.buildings[s] end
for r = 1, #b.leaders do
  for _, k in ipairs(RULES.components.buildings) do out[#out + 1] = r .. k.id .. '=' .. table.concat({ table.unpack(b.leaders[r][k.id]) }, ',') end
end
return table.concat(out, ' ')";

/// Buildings of every mix on the held provinces (`salt` varies them).
fn built(engine: &shogun_lab::engine::Engine, players: u8, salt: usize) -> shogun_lab::core::GameState {
    let mut st = crate::common::started(engine, players, 1);
    for (i, p) in st.provinces.iter_mut().enumerate() {
        if p.owner.is_some() {
            p.buildings = ((i * 5 + salt) % 8) as u8;
        }
    }
    st
}

#[test]
fn the_board_is_each_seat_s_holdings_and_each_region_s_leaders() {
    let engine = crate::common::engine();
    let (mut single, mut tied) = (0, 0);
    // The same VM shows one position after another: 5 seats, then 3, then
    // 4 (lists shrink and grow, stale entries go).
    for (players, salt) in [(5, 5), (3, 3), (4, 4), (4, 1)] {
        let st = built(&engine, players, salt);
        // Against counts read province by province and region by region.
        let code = "local b, single, tied = game.board(), 0, 0
for s = 1, game.seats() do
  local provinces, buildings = 0, 0
  for p = 1, #MAP.provinces do
    if game.owner(p) == s then provinces, buildings = provinces + 1, buildings + game.buildings(p) end
  end
  if b.provinces[s] ~= provinces or b.buildings[s] ~= buildings then error('seat ' .. s) end
end
if #b.provinces ~= game.seats() or b.provinces[game.seats() + 1] ~= nil then error('one entry per seat') end
if #b.leaders ~= #MAP.regions then error('one entry per region') end
for r = 1, #MAP.regions do
  for _, k in ipairs(RULES.components.buildings) do
    local counts = { game.region_buildings(r, k.id) }
    local most, want = 0, {}
    for s = 1, #counts do if counts[s] > most then most = counts[s] end end
    if most > 0 then for s = 1, #counts do if counts[s] == most then want[#want + 1] = s end end end
    local got = b.leaders[r][k.id]
    if table.concat({ table.unpack(got) }, ',') ~= table.concat(want, ',') or #got ~= #want then
      error(r .. ' ' .. k.id .. ': ' .. table.concat({ table.unpack(got) }, ',') .. ' against ' .. table.concat(want, ','))
    end
    if #got > 1 then tied = tied + 1 elseif #got == 1 then single = single + 1 end
  end
end
return single .. ' ' .. tied";
        let counts = engine.runtime().eval_readonly(&st, code).unwrap_or_else(|e| panic!("{players} players: {e}"));
        let (s, t) = counts.split_once(' ').unwrap();
        single += s.parse::<u32>().unwrap();
        tied += t.parse::<u32>().unwrap();
    }
    assert!(single > 0 && tied > 0, "single leaders {single}, tied {tied}");
    // Nothing built: every list empty.
    let st = crate::common::started(&engine, 4, 1);
    assert_eq!(engine.runtime().eval_readonly(&st, "return #game.board().leaders[1].castle").unwrap(), "0");
}

#[test]
fn the_board_is_read_only_takes_no_arguments_and_refuses_cleanly() {
    let engine = crate::common::engine();
    let st = built(&engine, 4, 2);
    let rt = engine.runtime();
    let before = rt.eval_readonly(&st, SHOW_BOARD).unwrap();
    for (code, want) in [
        ("game.board(1)", "game.board takes no arguments, got 1"),
        ("game.board(nil, 'x')", "game.board takes no arguments, got 2"),
        ("game.board().provinces[1] = 99", "game.board() is read-only (tried to set `1`)"),
        ("game.board().leaders[1].castle[1] = 2", "game.board() is read-only"),
        ("game.board().leaders[1].castle.n = 2", "game.board() is read-only (tried to set `n`)"),
        ("game.board().leaders[9] = {}", "game.board() is read-only"),
        ("game.board().extra = true", "game.board() is read-only (tried to set `extra`)"),
    ] {
        let err = rt.eval_readonly(&st, code).unwrap_err();
        assert!(err.message.contains(want), "{code}: {err}");
        // The runtime is usable after the error, and the board unchanged.
        assert_eq!(rt.eval_readonly(&st, SHOW_BOARD).unwrap(), before, "after {code}");
    }
}

/// The board holds nothing a seat's view hides: every seat's view shows
/// the same board as the whole state (a bot may score from its view).
#[test]
fn the_board_reads_nothing_a_seat_s_view_hides() {
    let engine = crate::common::engine();
    for players in [3, 4, 5] {
        let st = built(&engine, players, usize::from(players));
        let whole = engine.runtime().eval_readonly(&st, SHOW_BOARD).unwrap();
        assert!(whole.contains(','), "a tie to show: {whole}");
        for seat in 0..players {
            let view = st.view(Some(shogun_lab::core::Seat::new(usize::from(seat))));
            assert_eq!(engine.runtime().eval_readonly(&view, SHOW_BOARD).unwrap(), whole, "seat {seat} of {players}");
        }
    }
}

fn declared_globals(stub: &str) -> BTreeSet<String> {
    stub.lines()
        .filter_map(|l| l.strip_prefix("function ").map(|r| r.split('(').next().unwrap()).or_else(|| l.split_once(" = ").map(|(k, _)| k)))
        .filter(|k| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .map(String::from)
        .collect()
}

/// Globals the base pack's files define (`function NAME(` or `NAME = ` at
/// the start of a line; a script cannot list the globals table itself).
fn pack_globals() -> BTreeSet<String> {
    let dir = crate::common::root().join("scripts/base");
    let mut out = BTreeSet::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "lua") {
            out.extend(declared_globals(&std::fs::read_to_string(&path).unwrap()));
        }
    }
    out
}

/// Issue 24 item 10: every global a script may use (the host's tables and
/// helpers, the base pack's helpers such as `modify`, `count`, `skip`)
/// is declared in the LuaLS stubs, and every global the stubs declare
/// exists in a loaded game (reading an undefined global is an error there).
#[test]
fn stubs_declare_every_global_a_script_may_use() {
    let stub = std::fs::read_to_string(crate::common::root().join("docs/lua/shogun.lua")).unwrap();
    let declared = declared_globals(&stub);
    for g in pack_globals() {
        assert!(declared.contains(&g), "the base pack's global `{g}` is not declared in docs/lua/shogun.lua");
    }
    let engine = crate::common::engine();
    let st = crate::common::started(&engine, 4, 1);
    // The flat tables are read only as `NAME.field` (a script cannot take
    // one as a value): one of their fields stands for them.
    let flat = [("game", "seats"), ("shogun", "action"), ("string", "format"), ("math", "max"), ("table", "concat")];
    for g in &declared {
        let read = flat.iter().find(|(name, _)| name == g).map_or_else(|| g.to_string(), |(name, field)| format!("{name}.{field}"));
        let t = engine.runtime().eval_readonly(&st, &format!("return type({read})")).unwrap_or_else(|e| panic!("declared `{g}`: {e}"));
        assert_ne!(t, "nil", "declared `{g}` is nil in a loaded game");
    }
    assert!(declared.len() >= 15, "{declared:?}");
}

/// RULES, CARDS and MAP are typed: every key the loaded tables hold at
/// their top level (and a map province's) is a field of its class in the
/// stubs, so the editor completes them and they cannot drift.
#[test]
fn stubs_type_the_rules_cards_and_map_tables() {
    let stub = std::fs::read_to_string(crate::common::root().join("docs/lua/shogun.lua")).unwrap();
    let fields = |class: &str| -> BTreeSet<String> {
        let start = stub.find(&format!("---@class {class}\n")).unwrap_or_else(|| panic!("no class {class}"));
        stub[start..]
            .lines()
            .skip(1)
            .take_while(|l| l.starts_with("---@field"))
            .map(|l| l.split_whitespace().nth(1).unwrap().trim_end_matches('?').to_string())
            .collect()
    };
    let engine = crate::common::engine();
    let st = crate::common::started(&engine, 4, 1);
    for (table, class) in [("RULES", "Rules"), ("CARDS", "Cards"), ("MAP", "Map"), ("MAP.provinces[1]", "MapProvince"), ("CARDS.actions[1]", "ActionCard")] {
        let code = format!("local t = {{}} for k in spairs({table}) do t[#t + 1] = tostring(k) end return table.concat(t, ' ')");
        let keys = engine.runtime().eval_readonly(&st, &code).unwrap();
        let have = fields(class);
        for k in keys.split(' ').filter(|k| !k.is_empty()) {
            assert!(have.contains(k), "{table}.{k} is not a ---@field of {class} in docs/lua/shogun.lua");
        }
        assert!(stub.contains(&format!("---@type {class}")) || class.starts_with("Map") || class.ends_with("Card"), "{table} is typed {class}");
    }
}

#[test]
fn tally_refuses_what_is_not_a_metric_name() {
    let engine = crate::common::engine();
    let st = crate::common::started(&engine, 4, 1);
    let rt = engine.runtime();
    assert_eq!(rt.eval_readonly(&st, "game.tally('points.majority', 1, 3) game.tally('a-b_c.9', nil) return 1").unwrap(), "1");
    let long = format!("game.tally('{}', 1)", "k".repeat(65));
    for (code, want) in [
        ("game.tally('', 1)", "game.tally: `` is not a metric name"),
        ("game.tally('points provinces', 1)", "game.tally: `points provinces` is not a metric name"),
        ("game.tally('caf\\195\\169', 1)", "game.tally: `café` is not a metric name"),
        ("game.tally('\\255', 1)", "not valid UTF-8"),
        (long.as_str(), "is not a metric name (1 to 64 of a-z, 0-9, `.`, `_`, `-`)"),
        ("game.tally(7, 1)", "game.tally: argument 1 must be a string, got number"),
    ] {
        let err = rt.eval_readonly(&st, code).unwrap_err();
        assert!(err.message.contains(want), "{code}: {err}");
    }
}
