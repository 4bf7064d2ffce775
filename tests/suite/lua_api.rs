//! The documented Lua API (docs/lua/shogun.lua, docs/lua-api.md) matches
//! what the runtime really registers.

use std::collections::BTreeSet;

fn registered(table: &str) -> BTreeSet<String> {
    let engine = crate::common::engine();
    let st = crate::common::started(&engine, 4, 1);
    let code = format!("local t = {{}} for k, v in pairs({table}) do if type(v) == 'function' then t[#t + 1] = k end end return table.concat(t, ' ')");
    engine.runtime().eval_readonly(&st, &code).unwrap().split(' ').map(String::from).collect()
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

#[test]
fn the_registry_views_are_the_registered_functions_and_read_only() {
    let engine = crate::common::engine();
    let st = crate::common::started(&engine, 4, 1);
    let rt = engine.runtime();
    let same = "return shogun.actions.build == shogun.action_fn('build') and shogun.actions.deploy == shogun.action_fn('deploy')
  and shogun.handlers.score == shogun.handler_fn('score') and shogun.modifiers.add == shogun.modifier_fn('add')
  and shogun.actions.nothing == nil and #sorted_keys(shogun.handlers) > 0";
    assert_eq!(rt.eval_readonly(&st, same).unwrap(), "true");
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

#[test]
fn region_leaders_are_the_seats_with_the_most_buildings() {
    let engine = crate::common::engine();
    let (mut single, mut tied) = (0, 0);
    for players in [3, 4, 5] {
        let mut st = crate::common::started(&engine, players, 1);
        // Buildings of every mix on the held provinces.
        for (i, p) in st.provinces.iter_mut().enumerate() {
            if p.owner.is_some() {
                p.buildings = ((i * 5 + usize::from(players)) % 8) as u8;
            }
        }
        let code = "local single, tied = 0, 0
for r = 1, #MAP.regions do
  for _, b in ipairs(RULES.components.buildings) do
    local counts = { game.region_buildings(r, b.id) }
    local most = 0
    for s = 1, #counts do if counts[s] > most then most = counts[s] end end
    local want = { most }
    if most > 0 then for s = 1, #counts do if counts[s] == most then want[#want + 1] = s end end end
    local got = { game.region_leaders(r, b.id) }
    if table.concat(got, ',') ~= table.concat(want, ',') then error(r .. ' ' .. b.id .. ': ' .. table.concat(got, ',') .. ' against ' .. table.concat(want, ',')) end
    if #got > 2 then tied = tied + 1 elseif most > 0 then single = single + 1 end
  end
end
return single .. ' ' .. tied";
        let counts = engine.runtime().eval_readonly(&st, code).unwrap();
        let (s, t) = counts.split_once(' ').unwrap();
        single += s.parse::<u32>().unwrap();
        tied += t.parse::<u32>().unwrap();
    }
    assert!(single > 0 && tied > 0, "single leaders {single}, tied {tied}");
    let st = crate::common::started(&engine, 4, 1);
    assert_eq!(engine.runtime().eval_readonly(&st, "return select('#', game.region_leaders(1, 'castle'))").unwrap(), "1", "no buildings: just 0");
    for (code, want) in [
        ("game.region_leaders(99, 'castle')", "game.region_leaders: region 99 does not exist"),
        ("game.region_leaders(1, 'hut')", "game.region_leaders: unknown building kind `hut`"),
    ] {
        let err = engine.runtime().eval_readonly(&st, code).unwrap_err();
        assert!(err.message.contains(want), "{code}: {err}");
    }
}
